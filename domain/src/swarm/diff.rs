//! Push diffs (DESIGN wire contract): a subscriber holds the last answer
//! and receives only what changed. A diff is a JSON value merged into the
//! held answer: `null` deletes a key, a scalar (or array) replaces, an
//! object merges key by key. Because `null` means "delete", a document
//! that holds `null` values cannot be diffed faithfully; query answers
//! never hold one (absent fields are left out).

use serde_json::{Map, Value};

/// What turns `old` into `new`, or `None` when they are equal.
pub fn diff(old: &Value, new: &Value) -> Option<Value> {
    if old == new {
        return None;
    }
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => Some(Value::Object(diff_objects(old, new))),
        _ => Some(new.clone()),
    }
}

fn diff_objects(old: &Map<String, Value>, new: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for key in old.keys().filter(|k| !new.contains_key(*k)) {
        out.insert(key.clone(), Value::Null);
    }
    for (key, new_value) in new {
        let change = match old.get(key) {
            Some(old_value) => diff(old_value, new_value),
            None => Some(new_value.clone()),
        };
        if let Some(change) = change {
            out.insert(key.clone(), change);
        }
    }
    out
}

/// Applies a diff in place.
pub fn merge(target: &mut Value, diff: &Value) {
    let Value::Object(changes) = diff else {
        *target = diff.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(fields) = target else {
        unreachable!("made an object above");
    };
    for (key, change) in changes {
        if change.is_null() {
            fields.remove(key);
        } else {
            merge(fields.entry(key.clone()).or_insert(Value::Null), change);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_documents_have_no_diff() {
        assert_eq!(diff(&json!({"a": {"b": 1}}), &json!({"a": {"b": 1}})), None);
    }

    #[test]
    fn a_removed_key_diffs_to_null_and_merging_null_deletes_it() {
        let old = json!({"game": {"1": {"id": 1}, "2": {"id": 2}}});
        let new = json!({"game": {"1": {"id": 1}}});
        let d = diff(&old, &new).unwrap();
        assert_eq!(d, json!({"game": {"2": null}}));
        let mut held = old;
        merge(&mut held, &d);
        assert_eq!(held, new);
    }

    #[test]
    fn a_changed_scalar_diffs_to_its_new_value_and_only_changed_keys_travel() {
        let old = json!({"event": {"5": {"price": "1.850", "name": "Over"}}});
        let new = json!({"event": {"5": {"price": "1.900", "name": "Over"}}});
        assert_eq!(
            diff(&old, &new),
            Some(json!({"event": {"5": {"price": "1.900"}}}))
        );
    }

    #[test]
    fn an_added_subtree_travels_whole() {
        let old = json!({"market": {}});
        let new = json!({"market": {"7": {"event": {"8": {"price": "2.000"}}}}});
        let d = diff(&old, &new).unwrap();
        assert_eq!(d, new);
        let mut held = old;
        merge(&mut held, &d);
        assert_eq!(held, new);
    }

    #[test]
    fn a_change_of_type_replaces_the_value() {
        let old = json!({"a": {"b": 1}});
        let new = json!({"a": 5});
        let d = diff(&old, &new).unwrap();
        let mut held = old.clone();
        merge(&mut held, &d);
        assert_eq!(held, new);
        let mut held = new.clone();
        merge(&mut held, &diff(&new, &old).unwrap());
        assert_eq!(held, old);
    }

    #[test]
    fn merging_an_object_into_a_scalar_builds_the_object() {
        let mut held = json!(3);
        merge(&mut held, &json!({"a": 1, "b": null}));
        assert_eq!(held, json!({"a": 1}));
    }

    #[test]
    fn arrays_are_replaced_not_merged() {
        let old = json!({"a": [1, 2, 3]});
        let new = json!({"a": [1, 2]});
        assert_eq!(diff(&old, &new), Some(json!({"a": [1, 2]})));
    }
}
