//! A text staff give in each member language (zhh, eng, tha): task
//! titles, prize and goods names, goods descriptions. Stored and sent as
//! `{zhh, eng, tha}`; an older definition with one string still loads,
//! as the same text in all three languages.

use serde::{Deserialize, Deserializer, Serialize};

/// The member languages (spec 001: zhh, eng, tha).
pub const LANGS: [&str; 3] = ["zhh", "eng", "tha"];

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LangText {
    pub zhh: String,
    pub eng: String,
    pub tha: String,
}

impl LangText {
    pub fn new(zhh: &str, eng: &str, tha: &str) -> Self {
        LangText {
            zhh: zhh.into(),
            eng: eng.into(),
            tha: tha.into(),
        }
    }

    /// One text in all three languages (how a single string loads).
    pub fn same(text: &str) -> Self {
        Self::new(text, text, text)
    }

    /// The text in `lang` (zhh, eng, tha); an unknown or empty language
    /// falls back to eng, then to the first text given.
    pub fn pick(&self, lang: &str) -> &str {
        let wanted = match lang {
            "zhh" => &self.zhh,
            "tha" => &self.tha,
            _ => &self.eng,
        };
        [wanted, &self.eng, &self.zhh, &self.tha]
            .into_iter()
            .find(|t| !t.trim().is_empty())
            .map(String::as_str)
            .unwrap_or("")
    }

    fn all(&self) -> [&String; 3] {
        [&self.zhh, &self.eng, &self.tha]
    }

    /// Every language given, 1 to `max` characters each.
    pub fn check_required(&self, max: usize) -> bool {
        self.all().iter().all(|t| {
            let n = t.trim().chars().count();
            n > 0 && n <= max
        })
    }

    /// Every language at most `max` characters (may be empty).
    pub fn check_optional(&self, max: usize) -> bool {
        self.all().iter().all(|t| t.chars().count() <= max)
    }

    /// Whether `text` is this text in one of the languages (a record
    /// made from it, such as a draw or an order, names it so).
    pub fn is_one_of(&self, text: &str) -> bool {
        self.all().iter().any(|t| t.as_str() == text)
    }

    pub fn is_empty(&self) -> bool {
        self.all().iter().all(|t| t.trim().is_empty())
    }
}

impl From<&str> for LangText {
    fn from(text: &str) -> Self {
        Self::same(text)
    }
}

impl<'de> Deserialize<'de> for LangText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Map {
            #[serde(default)]
            zhh: String,
            #[serde(default)]
            eng: String,
            #[serde(default)]
            tha: String,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            One(String),
            Each(Map),
        }
        match Either::deserialize(d)
            .map_err(|_| serde::de::Error::custom("a text or {zhh, eng, tha} of texts"))?
        {
            Either::One(s) => Ok(LangText::same(&s)),
            Either::Each(m) => Ok(LangText {
                zhh: m.zhh,
                eng: m.eng,
                tha: m.tha,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_string_loads_as_the_same_text_in_every_language() {
        let t: LangText = serde_json::from_str("\"Power bank\"").unwrap();
        assert_eq!(t, LangText::new("Power bank", "Power bank", "Power bank"));
        assert_eq!(
            serde_json::to_value(&t).unwrap(),
            serde_json::json!({"zhh": "Power bank", "eng": "Power bank", "tha": "Power bank"})
        );
    }

    #[test]
    fn the_text_is_picked_in_the_language_else_eng() {
        let t: LangText =
            serde_json::from_str(r#"{"zhh": "充电宝", "eng": "Power bank", "tha": ""}"#).unwrap();
        assert_eq!(t.pick("zhh"), "充电宝");
        assert_eq!(t.pick("tha"), "Power bank");
        assert_eq!(t.pick("xx"), "Power bank");
        assert!(!t.check_required(60));
        assert!(t.check_optional(60));
    }

    #[test]
    fn other_shapes_are_refused() {
        assert!(serde_json::from_str::<LangText>("3").is_err());
        assert!(serde_json::from_str::<LangText>(r#"{"fra": "x"}"#).is_err());
    }
}
