//! Request ids: the client's name for one attempt at a command (placing a
//! bet, cashing out), so that the same attempt sent again - a retry after a
//! lost answer, a double tap - answers its first outcome instead of being
//! carried out twice.

use std::fmt;

/// The longest request id accepted (characters).
pub const REQUEST_ID_MAX: usize = 64;

/// A request id: 1 to 64 characters after trimming, no control characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RequestId(String);

impl RequestId {
    pub fn parse(text: &str) -> Option<RequestId> {
        let text = text.trim();
        let fits = !text.is_empty() && text.chars().count() <= REQUEST_ID_MAX;
        (fits && !text.chars().any(char::is_control)).then(|| RequestId(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_are_one_to_sixty_four_characters_without_control_characters() {
        assert_eq!(RequestId::parse(" slip-1 ").unwrap().as_str(), "slip-1");
        assert!(RequestId::parse(&"x".repeat(64)).is_some());
        assert!(RequestId::parse(&"x".repeat(65)).is_none());
        assert!(RequestId::parse("   ").is_none());
        assert!(RequestId::parse("a\nb").is_none());
    }
}
