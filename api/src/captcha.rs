//! The login / registration image code: a PNG of 4 digits with jitter and
//! noise. Drawn here with a 5x7 digit font on the `png` encoder; an image
//! library would add far more to the build than this needs.

use rand::Rng;

const WIDTH: usize = 120;
const HEIGHT: usize = 44;
const SCALE: usize = 4;

/// 5x7 glyphs, one row per byte, the low 5 bits left to right.
const GLYPHS: [[u8; 7]; 10] = [
    [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
    [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
    [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
    [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
    [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
    [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
    [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
    [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
    [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
    [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
];

/// A fresh 4-digit code.
pub fn new_code() -> String {
    let mut rng = rand::rng();
    (0..4)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

/// Renders `code` (digits only) as a PNG.
pub fn render(code: &str) -> Vec<u8> {
    let mut rng = rand::rng();
    let mut pixels = vec![0u8; WIDTH * HEIGHT * 3];
    let put = |x: i64, y: i64, rgb: [u8; 3], pixels: &mut Vec<u8>| {
        if (0..WIDTH as i64).contains(&x) && (0..HEIGHT as i64).contains(&y) {
            let i = (y as usize * WIDTH + x as usize) * 3;
            pixels[i..i + 3].copy_from_slice(&rgb);
        }
    };
    for y in 0..HEIGHT as i64 {
        for x in 0..WIDTH as i64 {
            let shade = 236 + rng.random_range(0..20u8);
            put(x, y, [shade, shade.saturating_sub(4), 225], &mut pixels);
        }
    }
    for (n, digit) in code.bytes().filter(u8::is_ascii_digit).take(4).enumerate() {
        let glyph = GLYPHS[(digit - b'0') as usize];
        let color = [
            rng.random_range(10..90),
            rng.random_range(40..110),
            rng.random_range(20..80),
        ];
        let left = 8 + n as i64 * 28 + rng.random_range(-3..=3);
        let top = 6 + rng.random_range(-3..=4);
        let slant = rng.random_range(-1..=1i64);
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..5 {
                if bits & (0x10 >> col) == 0 {
                    continue;
                }
                for dy in 0..SCALE as i64 {
                    for dx in 0..SCALE as i64 - 1 {
                        let y = top + row as i64 * SCALE as i64 + dy;
                        let x = left + col as i64 * SCALE as i64 + dx + slant * (row as i64 - 3);
                        put(x, y, color, &mut pixels);
                    }
                }
            }
        }
    }
    for _ in 0..5 {
        let (mut x, mut y) = (
            rng.random_range(0..WIDTH) as f32,
            rng.random_range(0..HEIGHT) as f32,
        );
        let (dx, dy) = (
            rng.random_range(-1.0..1.0f32),
            rng.random_range(-0.5..0.5f32),
        );
        let color = [
            rng.random_range(100..200),
            rng.random_range(100..200),
            rng.random_range(100..200),
        ];
        for _ in 0..120 {
            put(x as i64, y as i64, color, &mut pixels);
            x += dx;
            y += dy;
        }
    }
    for _ in 0..150 {
        let (x, y) = (
            rng.random_range(0..WIDTH) as i64,
            rng.random_range(0..HEIGHT) as i64,
        );
        let v = rng.random_range(60..200);
        put(x, y, [v, v, v], &mut pixels);
    }
    encode(&pixels)
}

fn encode(pixels: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, WIDTH as u32, HEIGHT as u32);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        // Writing to a Vec cannot fail; an empty image is the worst case.
        if let Ok(mut writer) = encoder.write_header() {
            let _ = writer.write_image_data(pixels);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_four_digits() {
        for _ in 0..50 {
            let code = new_code();
            assert_eq!(code.len(), 4);
            assert!(code.bytes().all(|b| b.is_ascii_digit()));
        }
    }

    #[test]
    fn the_image_is_a_png_of_the_stated_size() {
        let png = render("0427");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let reader = decoder.read_info().unwrap();
        assert_eq!((reader.info().width, reader.info().height), (120, 44));
    }
}
