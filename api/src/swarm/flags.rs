//! Params as real Swarm clients send them, read into the shapes the
//! services take: flags as 0/1 (or "0"/"1") as well as booleans, and
//! `bet_history` filters in `where` as well as at the top level.

use serde_json::{Map, Value};

/// A flag's value as a boolean: `true`/`false`, any number (0 is false,
/// anything else true) or the strings "0", "1", "true", "false". Anything
/// else is left as it is (and refused where it is read, code 3).
fn flag(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n.as_f64().map(|f| f != 0.0),
        Value::String(s) => match s.trim() {
            "0" | "false" => Some(false),
            "1" | "true" => Some(true),
            _ => None,
        },
        _ => None,
    }
}

fn normalize(object: &mut Map<String, Value>, names: &[&str]) {
    for name in names {
        if let Some(value) = object.get_mut(*name) {
            if let Some(b) = flag(value) {
                *value = Value::Bool(b);
            }
        }
    }
}

/// `do_bet` params with `is_offer`, `each_way` and each pick's `banker`
/// read as booleans.
pub fn normalized(params: &Value) -> Value {
    let mut params = params.clone();
    if let Value::Object(object) = &mut params {
        normalize(object, &["is_offer", "each_way"]);
        if let Some(Value::Array(picks)) = object.get_mut("bets") {
            for pick in picks {
                if let Value::Object(pick) = pick {
                    normalize(pick, &["banker"]);
                }
            }
        }
    }
    params
}

/// The names a `where` of `bet_history` may give each filter by.
const WHERE_FILTERS: &[(&str, &str)] = &[
    ("bet_id", "bet_id"),
    ("BetId", "bet_id"),
    ("id", "bet_id"),
    ("outcome", "outcome"),
    ("from_date", "from_date"),
    ("to_date", "to_date"),
    ("bet_type", "bet_type"),
    ("type", "bet_type"),
];

/// `bet_history` params with the filters of `where` moved to the top level
/// (a filter given at the top level wins). `where` must be an object.
pub fn history_filters(params: &Value) -> Result<Value, String> {
    let mut out = params.as_object().cloned().unwrap_or_default();
    match out.remove("where") {
        None | Some(Value::Null) => {}
        Some(Value::Object(filters)) => {
            for (given, name) in WHERE_FILTERS {
                let Some(value) = filters.get(*given) else {
                    continue;
                };
                let taken =
                    out.contains_key(*name) || (*name == "bet_id" && out.contains_key("BetId"));
                if !taken {
                    out.insert((*name).to_string(), value.clone());
                }
            }
            // A date range as operators: {"date": {"@gte": from, "@lt": to}}.
            for key in ["date", "date_time", "created"] {
                if let Some(Value::Object(range)) = filters.get(key) {
                    for (op, name) in [
                        ("@gte", "from_date"),
                        ("@gt", "from_date"),
                        ("@lte", "to_date"),
                        ("@lt", "to_date"),
                    ] {
                        if let Some(value) = range.get(op) {
                            out.entry(name).or_insert_with(|| value.clone());
                        }
                    }
                }
            }
        }
        Some(_) => return Err("invalid params: where must be an object".into()),
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flags_take_numbers_and_strings_as_booleans() {
        let params =
            json!({"is_offer": 1, "each_way": "0", "bets": [{"banker": 1}, {"banker": false}]});
        assert_eq!(
            normalized(&params),
            json!({"is_offer": true, "each_way": false, "bets": [{"banker": true}, {"banker": false}]})
        );
        // Something that is not a flag is left for the reader to refuse.
        assert_eq!(
            normalized(&json!({"is_offer": "maybe"}))["is_offer"],
            "maybe"
        );
    }

    #[test]
    fn history_filters_come_from_where_and_the_top_level_wins() {
        let params = json!({"where": {"bet_id": 7, "outcome": 3, "from_date": 10}, "outcome": 1});
        assert_eq!(
            history_filters(&params).unwrap(),
            json!({"bet_id": 7, "outcome": 1, "from_date": 10})
        );
        assert!(history_filters(&json!({"where": [1]})).is_err());
        let range = json!({"where": {"date": {"@gte": 100, "@lt": 200}}});
        assert_eq!(
            history_filters(&range).unwrap(),
            json!({"from_date": 100, "to_date": 200})
        );
    }
}
