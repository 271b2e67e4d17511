//! Which mode a launch request gets (spec 001 section 4 and section 6).
//!
//! - No mode given: real when logged in and the game supports real mode,
//!   otherwise fun.
//! - Real asked on a game without real mode falls back to fun.
//! - Real asked by a guest: the login form.
//! - A game with a direct link opens it when logged in, otherwise the
//!   login form.
//! - Visitors play fun or view only. A mode the game lacks falls back to
//!   the next one it has (fun, then view).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Real,
    Fun,
    View,
}

impl Mode {
    pub fn parse(text: &str) -> Option<Mode> {
        match text.trim().to_ascii_lowercase().as_str() {
            "real" | "1" => Some(Mode::Real),
            "fun" | "0" | "demo" => Some(Mode::Fun),
            "view" | "2" => Some(Mode::View),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Real => "real",
            Mode::Fun => "fun",
            Mode::View => "view",
        }
    }
}

/// The modes a game offers (`types` of spec 001 section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Modes {
    pub real_mode: bool,
    pub view_mode: bool,
    pub fun_mode: bool,
}

impl Modes {
    fn has(self, mode: Mode) -> bool {
        match mode {
            Mode::Real => self.real_mode,
            Mode::Fun => self.fun_mode,
            Mode::View => self.view_mode,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    Play(Mode),
    /// The direct link of the game (members only).
    Link,
    /// Show the login form.
    Login,
    /// The game offers nothing this visitor may open.
    Unavailable,
}

pub fn decide(requested: Option<Mode>, logged_in: bool, modes: Modes, direct_link: bool) -> Launch {
    if direct_link {
        return if logged_in {
            Launch::Link
        } else {
            Launch::Login
        };
    }
    let wanted = match requested {
        None if logged_in && modes.real_mode => Mode::Real,
        None => Mode::Fun,
        Some(Mode::Real) if !modes.real_mode => Mode::Fun,
        Some(Mode::Real) if !logged_in => return Launch::Login,
        Some(mode) => mode,
    };
    if modes.has(wanted) {
        return Launch::Play(wanted);
    }
    // The next mode the game has: fun, then view; real only for members.
    for fallback in [Mode::Fun, Mode::View] {
        if modes.has(fallback) {
            return Launch::Play(fallback);
        }
    }
    match (modes.real_mode, logged_in) {
        (true, true) => Launch::Play(Mode::Real),
        (true, false) => Launch::Login,
        _ => Launch::Unavailable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Modes = Modes {
        real_mode: true,
        view_mode: true,
        fun_mode: true,
    };
    const NO_REAL: Modes = Modes {
        real_mode: false,
        view_mode: true,
        fun_mode: true,
    };

    #[test]
    fn no_mode_is_real_for_a_member_on_a_real_game() {
        assert_eq!(decide(None, true, ALL, false), Launch::Play(Mode::Real));
    }

    #[test]
    fn no_mode_is_fun_for_a_guest_or_a_game_without_real() {
        assert_eq!(decide(None, false, ALL, false), Launch::Play(Mode::Fun));
        assert_eq!(decide(None, true, NO_REAL, false), Launch::Play(Mode::Fun));
    }

    #[test]
    fn real_on_a_game_without_real_falls_back_to_fun() {
        assert_eq!(
            decide(Some(Mode::Real), true, NO_REAL, false),
            Launch::Play(Mode::Fun)
        );
        assert_eq!(
            decide(Some(Mode::Real), false, NO_REAL, false),
            Launch::Play(Mode::Fun)
        );
    }

    #[test]
    fn a_guest_asking_for_real_gets_the_login_form() {
        assert_eq!(decide(Some(Mode::Real), false, ALL, false), Launch::Login);
    }

    #[test]
    fn a_direct_link_needs_login() {
        assert_eq!(decide(None, false, ALL, true), Launch::Login);
        assert_eq!(decide(Some(Mode::Fun), true, ALL, true), Launch::Link);
    }

    #[test]
    fn visitors_play_fun_or_view() {
        assert_eq!(
            decide(Some(Mode::View), false, ALL, false),
            Launch::Play(Mode::View)
        );
        let real_only = Modes {
            real_mode: true,
            ..Modes::default()
        };
        assert_eq!(
            decide(Some(Mode::Fun), false, real_only, false),
            Launch::Login
        );
        assert_eq!(
            decide(Some(Mode::Fun), false, Modes::default(), false),
            Launch::Unavailable
        );
    }
}
