//! The login / registration image code (spec: numeric, 4 digits), drawn by
//! the `captcha` crate: the digits 1-9 of its font (no 0, never mistaken for
//! an O), a wave distortion, noise and dots, scaled to 120 x 44.

use captcha::filters::{Dots, Noise, Wave};

pub const WIDTH: u32 = 120;
pub const HEIGHT: u32 = 44;

/// The font's digits (it has no 0).
const DIGITS: [char; 9] = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];

/// A fresh 4-digit code and its PNG.
pub fn generate() -> (String, Vec<u8>) {
    let mut image = captcha::Captcha::new();
    image
        .set_chars(&DIGITS)
        .add_chars(4)
        .apply_filter(Noise::new(0.2))
        .apply_filter(Wave::new(2.0, 10.0).horizontal())
        .view(WIDTH, HEIGHT)
        .apply_filter(Dots::new(8));
    (image.chars_as_string(), image.as_png().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_four_digits() {
        for _ in 0..50 {
            let (code, _) = generate();
            assert_eq!(code.len(), 4, "{code}");
            assert!(code.chars().all(|c| c.is_ascii_digit()), "{code}");
        }
    }

    #[test]
    fn the_image_is_a_png_of_the_stated_size_and_differs_each_time() {
        let (_, first) = generate();
        let (_, second) = generate();
        assert_eq!(&first[1..4], b"PNG");
        // IHDR: width and height, big-endian, at bytes 16..24.
        let width = u32::from_be_bytes(first[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(first[20..24].try_into().unwrap());
        assert_eq!((width, height), (WIDTH, HEIGHT));
        assert_ne!(first, second, "noise and placement vary");
    }
}
