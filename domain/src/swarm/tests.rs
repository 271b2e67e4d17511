//! Swarm rules, one test per rule: the query language, its errors, the
//! envelope, and the diff / merge property over random catalogues.

use rust_decimal_macros::dec;
use serde_json::{json, Value};

use super::*;
use crate::catalogue::testgen::{self, event, game, market, small, sport, Rng};
use crate::catalogue::{Catalogue, GameType, LiveInfo, Region};

/// `small()` plus: Arsenal v Chelsea also has an Asian handicap -0.25
/// (Home 1.950, Away 1.850); Everton (no team2, earlier kick-off, live) in
/// the Premier League; Lakers v Celtics is live with a score; Tennis has a
/// region and nothing below it.
fn fixture() -> Catalogue {
    let mut c = small();
    let mut ah = market(10001, 1000, "AsianHandicap");
    ah.base = Some(dec!(-0.25));
    ah.order = -1;
    c.insert_market(ah).unwrap();
    c.insert_event(event(100011, 10001, "Home", dec!(1.95)))
        .unwrap();
    c.insert_event(event(100012, 10001, "Away", dec!(1.85)))
        .unwrap();
    let mut everton = game(1001, 100, "Everton", None);
    everton.start_ts = 1_600_000_000;
    everton.game_type = GameType::Live;
    c.insert_game(everton).unwrap();
    c.update_game(3000, |g| {
        g.game_type = GameType::Live;
        g.info = Some(LiveInfo {
            current_game_state: "Q3".into(),
            clock: 1500,
            score1: 70,
            score2: 68,
        });
    })
    .unwrap();
    c.insert_sport(sport(5, "Tennis", 3));
    c.insert_region(Region {
        id: 50,
        sport_id: 5,
        name: "World".into(),
        alias: "World".into(),
        order: 0,
        names: Default::default(),
    })
    .unwrap();
    c
}

/// The time answers are given at (for `@now`).
const NOW: i64 = 1_700_000_000;

fn query(what: Value, where_: Value) -> Query {
    Query::parse(&what, &where_).unwrap()
}

fn answer(what: Value, where_: Value) -> Value {
    run(&fixture(), &query(what, where_), NOW)
}

fn refused(what: Value, where_: Value) -> QueryError {
    Query::parse(&what, &where_).unwrap_err()
}

fn ids(map: &Value) -> Vec<String> {
    map.as_object().unwrap().keys().cloned().collect()
}

// Shape.

#[test]
fn answers_nest_every_asked_level_keyed_by_id_strings() {
    let a = answer(
        json!({"sport": ["name"], "region": ["name"], "competition": ["name"], "game": ["team1_name"],
               "market": ["market_type"], "event": ["price"]}),
        json!({"sport": {"id": 1}}),
    );
    let game = &a["sport"]["1"]["region"]["10"]["competition"]["100"]["game"]["1000"];
    assert_eq!(game["team1_name"], "Arsenal");
    assert_eq!(
        game["market"]["10000"]["event"]["100002"],
        json!({"price": 3.25})
    );
    assert_eq!(a["sport"]["1"]["name"], "Football");
}

#[test]
fn an_empty_field_list_answers_every_field() {
    let a = answer(json!({"event": []}), json!({"event": {"id": 100011}}));
    assert_eq!(
        a,
        json!({"event": {"100011": {"id": 100011, "market_id": 10001, "name": "Home",
               "type": "Home", "price": 1.95, "is_suspended": false, "order": 1}}})
    );
    let g = answer(json!({"game": []}), json!({"game": {"id": 3000}}));
    assert_eq!(g["game"]["3000"]["info"]["score1"], 70);
    assert_eq!(g["game"]["3000"]["type"], 1);
    assert_eq!(g["game"]["3000"]["markets_count"], 0);
}

#[test]
fn only_the_asked_fields_are_answered() {
    let a = answer(json!({"sport": ["id", "alias"]}), json!({}));
    assert_eq!(a["sport"]["1"], json!({"id": 1, "alias": "Football"}));
}

#[test]
fn absent_optional_fields_are_left_out_never_null() {
    let a = answer(
        json!({"game": ["team1_name", "team2_name", "info"]}),
        json!({"game": {"id": 1001}}),
    );
    assert_eq!(a, json!({"game": {"1001": {"team1_name": "Everton"}}}));
}

#[test]
fn levels_not_asked_are_skipped_not_shown() {
    let a = answer(
        json!({"sport": ["name"], "game": ["team1_name"]}),
        json!({}),
    );
    assert_eq!(ids(&a["sport"]["1"]["game"]), ["1000", "1001"]);
    assert!(a["sport"]["1"].get("region").is_none());
    assert_eq!(a["sport"]["3"]["game"]["3000"]["team1_name"], "Lakers");
}

#[test]
fn nothing_below_the_deepest_asked_level_is_answered() {
    let a = answer(json!({"game": ["id"]}), json!({"game": {"id": 1000}}));
    assert_eq!(a, json!({"game": {"1000": {"id": 1000}}}));
}

#[test]
fn the_shallowest_asked_level_is_the_root() {
    let a = answer(json!({"market": ["market_type"]}), json!({}));
    assert_eq!(ids(&a["market"]), ["10000", "10001"]);
}

#[test]
fn rows_without_children_are_answered_when_nothing_below_is_filtered() {
    let a = answer(
        json!({"sport": ["name"], "competition": ["name"]}),
        json!({}),
    );
    assert_eq!(
        a["sport"]["5"],
        json!({"name": "Tennis", "competition": {}})
    );
}

#[test]
fn count_answers_the_number_of_matching_rows_in_place_of_the_map() {
    let a = answer(json!({"sport": ["name"], "game": "@count"}), json!({}));
    assert_eq!(a["sport"]["1"]["game"], json!(2));
    assert_eq!(a["sport"]["5"]["game"], json!(0));
    let root = answer(json!({"game": ["@count"]}), json!({"game": {"type": 1}}));
    assert_eq!(root, json!({"game": 2}));
}

#[test]
fn count_must_be_the_deepest_level_asked() {
    assert_eq!(
        refused(json!({"game": "@count", "market": []}), json!({})),
        QueryError::CountNotDeepest(crate::catalogue::Level::Game)
    );
}

// Operators.

#[test]
fn plain_values_mean_equality() {
    let a = answer(
        json!({"game": ["id"]}),
        json!({"game": {"team1_name": "Lakers"}}),
    );
    assert_eq!(ids(&a["game"]), ["3000"]);
    let a = answer(json!({"event": ["id"]}), json!({"event": {"price": "2.1"}}));
    assert_eq!(ids(&a["event"]), ["100001"], "decimals compare by value");
}

#[test]
fn in_keeps_rows_whose_value_is_listed() {
    let a = answer(
        json!({"game": ["id"]}),
        json!({"game": {"type": {"@in": [0, 2]}}}),
    );
    assert_eq!(ids(&a["game"]), ["1000"]);
}

#[test]
fn nin_keeps_rows_whose_value_is_not_listed() {
    let a = answer(
        json!({"event": ["id"]}),
        json!({"event": {"type": {"@nin": ["X", "Home", "Away"]}}}),
    );
    assert_eq!(ids(&a["event"]), ["100001", "100003"]);
}

#[test]
fn gt_gte_lt_lte_compare_numbers_and_decimals() {
    let price = |op: &str, v: Value| {
        ids(&answer(
            json!({"event": ["id"]}),
            json!({"event": {"price": {op: v}}}),
        )["event"])
    };
    assert_eq!(price("@gt", json!(3.25)), ["100003"]);
    assert_eq!(price("@gte", json!("3.25")), ["100002", "100003"]);
    assert_eq!(price("@lt", json!(1.9)), ["100012"]);
    assert_eq!(price("@lte", json!(1.95)), ["100011", "100012"]);
    let a = answer(
        json!({"game": ["id"]}),
        json!({"game": {"start_ts": {"@gte": 1_650_000_000, "@lt": 1_800_000_000}}}),
    );
    assert_eq!(ids(&a["game"]), ["1000", "3000"]);
}

#[test]
fn comparisons_on_text_fields_are_by_text_and_absent_values_never_compare() {
    let a = answer(
        json!({"game": ["id"]}),
        json!({"game": {"team2_name": {"@gte": "Celtics"}}}),
    );
    assert_eq!(ids(&a["game"]), ["1000", "3000"], "Everton has no team2");
}

#[test]
fn like_is_a_case_insensitive_substring() {
    let a = answer(
        json!({"game": ["id"]}),
        json!({"game": {"team1_name": {"@like": "ARS"}}}),
    );
    assert_eq!(ids(&a["game"]), ["1000"]);
    let a = answer(
        json!({"competition": ["id"]}),
        json!({"competition": {"name": {"@like": "league"}}}),
    );
    assert_eq!(ids(&a["competition"]), ["100"]);
}

#[test]
fn or_holds_when_any_of_its_condition_groups_holds() {
    let a = answer(
        json!({"game": ["id"]}),
        json!({"game": {"@or": [{"team1_name": "Lakers"}, {"team2_name": "Chelsea"}]}}),
    );
    assert_eq!(ids(&a["game"]), ["1000", "3000"]);
    let on_field = answer(
        json!({"event": ["id"]}),
        json!({"event": {"price": {"@or": [{"@lt": 1.9}, {"@gt": 3.5}]}}}),
    );
    assert_eq!(ids(&on_field["event"]), ["100003", "100012"]);
}

#[test]
fn and_holds_when_every_condition_group_holds() {
    let a = answer(
        json!({"game": ["id"]}),
        json!({"game": {"@and": [{"type": 1}, {"start_ts": {"@gt": 1_650_000_000}}]}}),
    );
    assert_eq!(ids(&a["game"]), ["3000"]);
    let on_field = answer(
        json!({"event": ["id"]}),
        json!({"event": {"price": {"@and": [{"@gt": 1.9}, {"@lt": 3}]}}}),
    );
    assert_eq!(ids(&on_field["event"]), ["100001", "100011"]);
}

#[test]
fn node_limit_keeps_the_first_rows_in_natural_order_under_each_parent() {
    let a = answer(
        json!({"competition": ["id"], "game": ["id"]}),
        json!({"game": {"@node_limit": 1}}),
    );
    assert_eq!(
        ids(&a["competition"]["100"]["game"]),
        ["1001"],
        "earliest kick-off first"
    );
    let markets = answer(
        json!({"market": ["id"]}),
        json!({"market": {"@node_limit": 1}}),
    );
    assert_eq!(ids(&markets["market"]), ["10001"], "market order -1 first");
    let sports = answer(
        json!({"sport": ["id"]}),
        json!({"sport": {"@node_limit": 2}}),
    );
    assert_eq!(ids(&sports["sport"]), ["1", "3"]);
}

#[test]
fn node_limit_does_not_change_a_count() {
    let a = answer(
        json!({"game": "@count"}),
        json!({"game": {"@node_limit": 1}}),
    );
    assert_eq!(a, json!({"game": 3}));
}

#[test]
fn a_filter_below_the_asked_levels_keeps_only_rows_with_a_matching_descendant() {
    let a = answer(json!({"sport": ["name"]}), json!({"game": {"type": 1}}));
    assert_eq!(ids(&a["sport"]), ["1", "3"]);
    let a = answer(
        json!({"game": ["id"]}),
        json!({"event": {"price": {"@gt": 3.5}}}),
    );
    assert_eq!(ids(&a["game"]), ["1000"]);
    let a = answer(
        json!({"sport": ["name"]}),
        json!({"event": {"type": "Nope"}}),
    );
    assert_eq!(a, json!({"sport": {}}));
}

#[test]
fn filters_on_levels_not_asked_still_apply() {
    let a = answer(
        json!({"game": ["id"]}),
        json!({"sport": {"alias": "Basketball"}}),
    );
    assert_eq!(ids(&a["game"]), ["3000"]);
    let a = answer(
        json!({"sport": ["id"], "market": ["id"]}),
        json!({"game": {"id": 1000}}),
    );
    assert_eq!(ids(&a["sport"]["1"]["market"]), ["10000", "10001"]);
    assert_eq!(ids(&a["sport"]), ["1"]);
}

#[test]
fn null_equals_an_absent_optional_field() {
    let a = answer(
        json!({"game": ["id"]}),
        json!({"game": {"team2_name": null}}),
    );
    assert_eq!(ids(&a["game"]), ["1001"]);
    let a = answer(
        json!({"market": ["id"]}),
        json!({"market": {"base": {"@nin": [null]}}}),
    );
    assert_eq!(ids(&a["market"]), ["10001"]);
}

#[test]
fn flags_take_booleans_or_one_and_zero() {
    let mut c = fixture();
    c.update_event(100002, |e| e.is_suspended = true).unwrap();
    let live = |flag: Value| {
        let q = query(
            json!({"event": ["id"]}),
            json!({"event": {"is_suspended": flag}}),
        );
        ids(&run(&c, &q, NOW)["event"])
    };
    assert_eq!(live(json!(true)), ["100002"]);
    assert_eq!(live(json!(1)), ["100002"]);
    assert_eq!(live(json!(0)).len(), 4);
}

// Errors.

#[test]
fn an_unknown_level_is_refused() {
    assert_eq!(
        refused(json!({"team": []}), json!({})),
        QueryError::UnknownLevel("team".into())
    );
    assert_eq!(
        refused(json!({"game": []}), json!({"league": {"id": 1}})),
        QueryError::UnknownLevel("league".into())
    );
}

#[test]
fn a_field_the_level_does_not_have_is_left_out_never_refused() {
    let a = answer(
        json!({"game": ["id", "score", "video_id", "tv_type"]}),
        json!({"game": {"id": 1000}}),
    );
    assert_eq!(a, json!({"game": {"1000": {"id": 1000}}}));
    // A condition on such a field is ignored.
    let b = answer(
        json!({"game": ["id"]}),
        json!({"game": {"colour": 1, "show_type": {"@ne": "OUTRIGHT"}, "id": 1000}}),
    );
    assert_eq!(b, json!({"game": {"1000": {"id": 1000}}}));
}

#[test]
fn an_unknown_operator_is_refused() {
    assert_eq!(
        refused(
            json!({"game": []}),
            json!({"game": {"id": {"@between": [1, 2]}}})
        ),
        QueryError::UnknownOperator("@between".into())
    );
    assert_eq!(
        refused(json!({"game": []}), json!({"game": {"@xor": []}})),
        QueryError::UnknownOperator("@xor".into())
    );
}

#[test]
fn an_operator_in_the_wrong_place_is_refused() {
    let misplaced = |where_: Value| refused(json!({"game": []}), where_);
    assert_eq!(
        misplaced(json!({"game": {"@in": [1]}})),
        QueryError::MisplacedOperator("@in".into())
    );
    assert_eq!(
        misplaced(json!({"game": {"@or": [{"@node_limit": 1}]}})),
        QueryError::MisplacedOperator("@node_limit".into())
    );
    assert_eq!(
        misplaced(json!({"game": {"id": {"@node_limit": 1}}})),
        QueryError::MisplacedOperator("@node_limit".into())
    );
}

#[test]
fn an_operand_of_the_wrong_type_is_refused() {
    let cases = [
        json!({"game": {"type": {"@in": 1}}}),
        json!({"game": {"type": {"@nin": "0"}}}),
        json!({"game": {"type": {"@in": ["live"]}}}),
        json!({"game": {"start_ts": {"@gt": true}}}),
        json!({"game": {"start_ts": {"@lte": null}}}),
        json!({"game": {"start_ts": {"@lt": [1]}}}),
        json!({"game": {"id": {"@like": "1"}}}),
        json!({"game": {"team1_name": {"@like": 1}}}),
        json!({"game": {"team1_name": 5}}),
        json!({"game": {"id": [1, 2]}}),
        json!({"game": {"is_blocked": "yes"}}),
        json!({"game": {"is_blocked": 2}}),
        json!({"game": {"@or": {"id": 1}}}),
        json!({"game": {"@and": [1]}}),
        json!({"game": {"id": {"@or": 1}}}),
        json!({"event": {"price": {"@gt": "cheap"}}}),
    ];
    for where_ in cases {
        let err = refused(json!({"game": []}), where_.clone());
        assert!(
            matches!(err, QueryError::WrongOperandType { .. }),
            "{where_} gave {err:?}"
        );
    }
}

#[test]
fn a_bad_node_limit_is_refused() {
    for limit in [json!(-1), json!(1.5), json!("2")] {
        assert!(matches!(
            refused(json!({"game": []}), json!({"game": {"@node_limit": limit}})),
            QueryError::BadNodeLimit(_)
        ));
    }
}

#[test]
fn nested_game_info_cannot_be_filtered() {
    assert!(matches!(
        refused(json!({"game": []}), json!({"game": {"info": null}})),
        QueryError::NotFilterable { .. }
    ));
}

#[test]
fn what_must_be_an_object_naming_levels_with_field_lists() {
    assert_eq!(
        refused(json!([]), json!({})),
        QueryError::NotAnObject("what")
    );
    assert_eq!(refused(json!({}), json!({})), QueryError::NothingAsked);
    assert!(matches!(
        refused(json!({"game": "all"}), json!({})),
        QueryError::BadSelection(_)
    ));
    assert!(matches!(
        refused(json!({"game": [1]}), json!({})),
        QueryError::BadSelection(_)
    ));
    assert_eq!(
        answer(
            json!({"game": ["@count", "id"]}),
            json!({"game": {"id": 1000}})
        ),
        json!({"game": {"1000": {"id": 1000}}})
    );
    assert_eq!(
        refused(json!({"game": []}), json!([1])),
        QueryError::NotAnObject("where")
    );
    assert_eq!(
        refused(json!({"game": []}), json!({"game": 1})),
        QueryError::NotAnObject("where.<level>")
    );
}

#[test]
fn get_params_default_to_betting_without_subscription() {
    let get = GetRequest::parse(&json!({"what": {"sport": []}})).unwrap();
    assert!(!get.subscribe);
    let get = GetRequest::parse(
        &json!({"source": "betting", "what": {"sport": []}, "where": null,
                                       "subscribe": true}),
    )
    .unwrap();
    assert!(get.subscribe);
    assert_eq!(
        GetRequest::parse(&json!({"source": "casino", "what": {"sport": []}})),
        Err(QueryError::UnknownSource("casino".into()))
    );
    assert!(matches!(
        GetRequest::parse(&json!({"what": {"sport": []}, "subscribe": "yes"})),
        Err(QueryError::BadParam {
            field: "subscribe",
            ..
        })
    ));
    assert!(
        GetRequest::parse(&json!({"where": {}})).is_err(),
        "what is required"
    );
}

// Envelope.

#[test]
fn a_request_echoes_its_rid_as_given_string_or_number() {
    let r =
        parse_request(r#"{"command":"get","params":{"what":{"sport":[]}},"rid":"abc-1"}"#).unwrap();
    assert_eq!(r.command, Command::Get);
    assert_eq!(
        serde_json::to_value(r.ok(json!({}))).unwrap()["rid"],
        "abc-1"
    );
    let r = parse_request(r#"{"command":"whats_up","rid":17}"#).unwrap();
    assert_eq!(serde_json::to_value(r.ok(json!({}))).unwrap()["rid"], 17);
    assert_eq!(r.params, json!({}), "missing params are an empty object");
    let r = parse_request(r#"{"command":"logout"}"#).unwrap();
    assert_eq!(
        serde_json::to_value(r.ok(json!({}))).unwrap()["rid"],
        Value::Null
    );
}

#[test]
fn malformed_requests_and_unknown_commands_are_code_2() {
    let cases = [
        "",
        "not json",
        "[1,2]",
        "\"get\"",
        r#"{"params":{}}"#,
        r#"{"command":5}"#,
        r#"{"command":"fly","rid":"r1"}"#,
        r#"{"command":"get","rid":{"a":1}}"#,
        r#"{"command":"get","rid":[1]}"#,
        r#"{"command":"get","rid":true}"#,
    ];
    for text in cases {
        let err = parse_request(text).unwrap_err();
        assert_eq!(err.code(), INVALID_COMMAND, "{text}: {err}");
    }
    let unknown = parse_request(r#"{"command":"fly","rid":"r1"}"#).unwrap_err();
    assert_eq!(
        unknown.rid,
        Some(Rid::Text("r1".into())),
        "the rid is echoed when readable"
    );
}

#[test]
fn invalid_params_are_code_3() {
    let err = parse_request(r#"{"command":"get","params":[1],"rid":1}"#).unwrap_err();
    assert_eq!(err.code(), INVALID_PARAMS);
    let r = parse_request(r#"{"command":"get","params":{"what":{"planet":[]}},"rid":2}"#).unwrap();
    let err = r.get_params().unwrap_err();
    assert_eq!(err.code(), INVALID_PARAMS);
    let answer = serde_json::to_value(err.answer()).unwrap();
    assert_eq!(answer["code"], 3);
    assert_eq!(answer["rid"], 2);
    assert_eq!(answer["data"], Value::Null);
    assert!(answer["msg"].as_str().unwrap().contains("planet"));
    let r = parse_request(r#"{"command":"unsubscribe","params":{"subid":[1]},"rid":3}"#).unwrap();
    assert_eq!(
        r.params_as::<UnsubscribeParams>().unwrap_err().code(),
        INVALID_PARAMS
    );
}

#[test]
fn typed_params_take_ids_as_numbers_or_strings() {
    let r = parse_request(
        r#"{"command":"request_session","params":{"language":"eng","site_id":1054,"source":42},"rid":1}"#,
    )
    .unwrap();
    let p: RequestSessionParams = r.params_as().unwrap();
    assert_eq!(p.site_id.as_deref(), Some("1054"));
    assert_eq!(p.source.as_deref(), Some("42"));
    let r = parse_request(r#"{"command":"restore_login","params":{"user_id":7,"auth_token":"t"}}"#)
        .unwrap();
    assert_eq!(r.params_as::<RestoreLoginParams>().unwrap().user_id, "7");
    let r = parse_request(r#"{"command":"unsubscribe","params":{"subid":"s-9"}}"#).unwrap();
    assert_eq!(r.params_as::<UnsubscribeParams>().unwrap().subid, "s-9");
}

#[test]
fn answers_carry_code_rid_and_data_and_a_push_has_rid_0_keyed_by_subid() {
    let ok = Answer::ok(Some(Rid::Text("x".into())), json!({"sid": "s1"}));
    assert_eq!(
        serde_json::to_value(ok).unwrap(),
        json!({"code": 0, "rid": "x", "data": {"sid": "s1"}})
    );
    let lost = Answer::error(Some(Rid::Number(4.into())), SESSION_LOST, "session lost");
    assert_eq!(
        serde_json::to_value(lost).unwrap(),
        json!({"code": 5, "rid": 4, "data": null, "msg": "session lost"})
    );
    let push = Answer::push([(
        "sub1".to_string(),
        json!({"event": {"1": {"price": "2.000"}}}),
    )]);
    assert_eq!(
        serde_json::to_value(push).unwrap(),
        json!({"code": 0, "rid": "0", "data": {"sub1": {"event": {"1": {"price": "2.000"}}}}})
    );
    assert_eq!(NOT_LOGGED_IN, 12);
    let sub = Subscribed {
        subid: "s".into(),
        data: json!({}),
    };
    assert_eq!(
        serde_json::to_value(sub).unwrap(),
        json!({"subid": "s", "data": {}})
    );
}

#[test]
fn command_names_round_trip() {
    for name in [
        "request_session",
        "restore_login",
        "whats_up",
        "calculate_cashout_amount",
        "super_bet_answer",
        "book_bet",
        "get_booking",
    ] {
        assert_eq!(name.parse::<Command>().unwrap().name(), name);
    }
}

// Robustness and the diff property.

fn random_json(rng: &mut Rng, depth: u32) -> Value {
    let keys = [
        "command",
        "params",
        "rid",
        "what",
        "where",
        "sport",
        "game",
        "event",
        "price",
        "type",
        "@in",
        "@or",
        "@and",
        "@node_limit",
        "@count",
        "@like",
        "@gt",
        "id",
    ];
    match rng.below(if depth == 0 { 5 } else { 7 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.below(2000) as i64 - 1000),
        3 => json!(format!("{}", rng.below(3))),
        4 => json!(*rng.pick(&keys)),
        5 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_json(rng, depth - 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| (rng.pick(&keys).to_string(), random_json(rng, depth - 1)))
                .collect(),
        ),
    }
}

#[test]
fn no_input_makes_parsing_or_running_panic() {
    let mut rng = Rng::new(7);
    let c = fixture();
    for _ in 0..3000 {
        let what = random_json(&mut rng, 3);
        let where_ = random_json(&mut rng, 4);
        if let Ok(q) = Query::parse(&what, &where_) {
            run(&c, &q, NOW);
        }
        let request =
            json!({"command": "get", "params": {"what": what, "where": where_}, "rid": 1});
        let mut text = request.to_string();
        if rng.chance(30) {
            let cut = rng.below(text.len() as u64 + 1) as usize;
            text.truncate(cut);
        }
        if let Ok(r) = parse_request(&text) {
            let _ = r.get_params();
        }
        let _ = parse_request(&random_json(&mut rng, 3).to_string());
    }
    for text in [
        "\u{0}",
        "{\"command\":\"get\",\"rid\":1e999}",
        &"[".repeat(10_000),
    ] {
        assert!(parse_request(text).is_err());
    }
}

fn random_what(rng: &mut Rng) -> Value {
    let levels = ["sport", "region", "competition", "game", "market", "event"];
    let mut what = serde_json::Map::new();
    for (depth, level) in levels.iter().enumerate() {
        if !rng.chance(40) {
            continue;
        }
        let names: Vec<&str> = fields(crate::catalogue::Level::ALL[depth])
            .iter()
            .map(|(n, _)| *n)
            .collect();
        let chosen: Vec<&str> = names.into_iter().filter(|_| rng.chance(50)).collect();
        what.insert(level.to_string(), json!(chosen));
    }
    if what.is_empty() {
        what.insert("game".into(), json!([]));
    }
    if rng.chance(15) {
        let deepest = what
            .keys()
            .max_by_key(|k| levels.iter().position(|l| l == k))
            .unwrap()
            .clone();
        what.insert(deepest, json!("@count"));
    }
    Value::Object(what)
}

fn random_where(rng: &mut Rng) -> Value {
    let templates = [
        json!({"game": {"type": {"@in": [0, 2]}}}),
        json!({"game": {"type": 1}}),
        json!({"event": {"price": {"@gte": "2.5"}}}),
        json!({"event": {"is_suspended": false}}),
        json!({"market": {"market_type": {"@in": ["P1XP2", "AsianHandicap"]}}}),
        json!({"market": {"@node_limit": 2}}),
        json!({"game": {"@or": [{"type": 1}, {"start_ts": {"@lt": 1_700_010_000}}]}}),
        json!({"game": {"team1_name": {"@like": "an"}, "@node_limit": 3}}),
        json!({"sport": {"id": {"@nin": [2]}}}),
        json!({"event": {"price": {"@and": [{"@gt": 2}, {"@lte": 6}]}}}),
        json!({"region": {"@node_limit": 1}}),
    ];
    let mut out = serde_json::Map::new();
    for _ in 0..rng.below(3) {
        let template = rng.pick(&templates).as_object().unwrap().clone();
        for (level, conditions) in template {
            out.insert(level, conditions);
        }
    }
    Value::Object(out)
}

#[test]
fn merging_the_diff_of_two_answers_into_the_old_one_gives_the_new_one() {
    let mut rng = Rng::new(20_240_501);
    let mut changed = 0;
    for round in 0..400 {
        let mut catalogue = testgen::catalogue(&mut rng);
        let query = Query::parse(&random_what(&mut rng), &random_where(&mut rng)).unwrap();
        let mut held = run(&catalogue, &query, NOW);
        for _ in 0..1 + rng.below(4) {
            testgen::mutate(&mut rng, &mut catalogue);
            let new = run(&catalogue, &query, NOW);
            match diff(&held, &new) {
                Some(d) => {
                    changed += 1;
                    merge(&mut held, &d)
                }
                None => assert_eq!(held, new, "round {round}: no diff means equal"),
            }
            assert_eq!(held, new, "round {round}");
        }
    }
    assert!(changed > 100, "only {changed} mutations changed an answer");
}

fn random_document(rng: &mut Rng, depth: u32) -> Value {
    let keys = ["1", "2", "3", "price", "name"];
    match rng.below(if depth == 0 { 3 } else { 5 }) {
        0 => json!(rng.below(3)),
        1 => json!(*rng.pick(&["a", "b"])),
        2 => json!([rng.below(2)]),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| (rng.pick(&keys).to_string(), random_document(rng, depth - 1)))
                .collect(),
        ),
    }
}

#[test]
fn diff_then_merge_round_trips_any_documents_without_nulls() {
    let mut rng = Rng::new(99);
    for _ in 0..2000 {
        let old = random_document(&mut rng, 4);
        let new = random_document(&mut rng, 4);
        let mut held = old.clone();
        if let Some(d) = diff(&old, &new) {
            merge(&mut held, &d);
        }
        assert_eq!(held, new);
        assert_eq!(diff(&new, &new), None);
    }
}

#[test]
fn markets_serve_their_each_way_and_sp_terms() {
    let mut c = fixture();
    c.update_market(10000, |m| {
        m.ew_allowed = true;
        m.ew_places = Some(3);
        m.ew_coeff = Some(dec!(0.25));
        m.sp_allowed = true;
    })
    .unwrap();
    let all = run(&c, &query(json!({"market": []}), json!({})), NOW);
    let racing = &all["market"]["10000"];
    assert_eq!(racing["ew_allowed"], true);
    assert_eq!(racing["ew_places"], 3);
    assert_eq!(racing["ew_coeff"], "0.25");
    assert_eq!(racing["sp_allowed"], true);
    // A market without terms says so; absent values stay out.
    let plain = &all["market"]["10001"];
    assert_eq!(plain["ew_allowed"], false);
    assert_eq!(plain["sp_allowed"], false);
    assert!(plain.get("ew_places").is_none() && plain.get("ew_coeff").is_none());
    // The terms filter like any field.
    let sp = run(
        &c,
        &query(
            json!({"market": ["id"]}),
            json!({"market": {"sp_allowed": true}}),
        ),
        NOW,
    );
    assert_eq!(ids(&sp["market"]), ["10000"]);
}

#[test]
fn a_query_with_more_than_a_thousand_terms_is_refused_before_it_runs() {
    let ids: Vec<u64> = (0..100_000).collect();
    let error = Query::parse(
        &json!({"event": ["id"]}),
        &json!({"event": {"id": {"@in": ids}}}),
    )
    .unwrap_err();
    assert_eq!(error, QueryError::TooLarge(MAX_QUERY_TERMS));
    assert_eq!(
        error.to_string(),
        "the query is too large: at most 1000 conditions and list items"
    );
    // Nested groups count too.
    let group: Vec<Value> = (0..600).map(|i| json!({"id": i})).collect();
    let error = Query::parse(
        &json!({"game": ["id"]}),
        &json!({"game": {"@or": group.clone()}, "event": {"@and": group}}),
    )
    .unwrap_err();
    assert_eq!(error, QueryError::TooLarge(MAX_QUERY_TERMS));
    // 999 ids are fine.
    let ids: Vec<u64> = (0..998).collect();
    Query::parse(
        &json!({"event": ["id"]}),
        &json!({"event": {"id": {"@in": ids}}}),
    )
    .unwrap();
}

// Liberal query shapes of the real protocol (issue 17).

#[test]
fn what_may_be_a_list_nested_once() {
    let a = answer(
        json!({"game": [["id", "team1_name"]]}),
        json!({"game": {"id": 1000}}),
    );
    assert_eq!(
        a,
        json!({"game": {"1000": {"id": 1000, "team1_name": "Arsenal"}}})
    );
}

#[test]
fn a_level_whose_where_is_null_has_no_conditions() {
    let a = answer(
        json!({"game": ["id"]}),
        json!({"game": null, "market": null}),
    );
    assert_eq!(ids(&a["game"]), ["1000", "1001", "3000"]);
}

#[test]
fn at_now_compares_with_the_time_of_the_answer() {
    // Kick-offs: 1001 long before NOW (1_600_000_000), 1000 and 3000 at NOW.
    let upcoming = answer(
        json!({"game": ["id"]}),
        json!({"game": {"start_ts": {"@gte": {"@now": 0}}}}),
    );
    assert_eq!(ids(&upcoming["game"]), ["1000", "3000"]);
    let started = answer(
        json!({"game": ["id"]}),
        json!({"game": {"start_ts": {"@lt": {"@now": 0}}}}),
    );
    assert_eq!(ids(&started["game"]), ["1001"]);
    let next_hour = json!({"game": {"start_ts": {"@now": {"@gte": 0, "@lt": 3600}}}});
    let q = query(json!({"game": ["id"]}), next_hour);
    assert!(q.uses_now());
    assert_eq!(ids(&run(&fixture(), &q, NOW)["game"]), ["1000", "3000"]);
    // Two hours later the same subscription answers nothing.
    assert_eq!(run(&fixture(), &q, NOW + 7200)["game"], json!({}));
}

#[test]
fn at_now_takes_whole_seconds_on_a_time_field() {
    assert!(matches!(
        refused(json!({"game": []}), json!({"game": {"start_ts": {"@gte": {"@now": "soon"}}}})),
        QueryError::WrongOperandType { field, .. } if field == "start_ts"
    ));
    assert!(matches!(
        refused(json!({"game": []}), json!({"game": {"team1_name": {"@now": {"@gte": 0}}}})),
        QueryError::WrongOperandType { field, .. } if field == "team1_name"
    ));
}

#[test]
fn at_limit_keeps_the_first_rows_of_a_level_in_the_whole_answer() {
    let a = answer(
        json!({"sport": ["id"], "game": ["id"]}),
        json!({"game": {"@limit": 2}}),
    );
    // Football (order 1) first: Everton (earlier kick-off), then Arsenal.
    assert_eq!(ids(&a["sport"]["1"]["game"]), ["1000", "1001"]);
    assert_eq!(a["sport"]["3"]["game"], json!({}));
    let one = answer(json!({"game": ["id"]}), json!({"game": {"@limit": 1}}));
    assert_eq!(
        ids(&one["game"]),
        ["1001"],
        "the earliest kick-off of the first sport"
    );
    assert!(matches!(
        refused(json!({"game": []}), json!({"game": {"@limit": -1}})),
        QueryError::BadLimit(_)
    ));
}

#[test]
fn at_ne_excludes_one_value() {
    let a = answer(
        json!({"game": ["id"]}),
        json!({"game": {"type": {"@ne": 1}}}),
    );
    assert_eq!(ids(&a["game"]), ["1000"]);
}

#[test]
fn names_are_answered_and_searched_in_the_sessions_language() {
    let mut c = fixture();
    c.update_sport(1, |s| {
        s.names.insert("zhh".into(), "足球".into());
        s.names.insert("tha".into(), "ฟุตบอล".into());
    })
    .unwrap();
    let q = query(json!({"sport": ["name"]}), json!({"sport": {"id": 1}}));
    assert_eq!(run(&c, &q, NOW)["sport"]["1"]["name"], "Football");
    let zhh = q.clone().with_language("zhh");
    assert_eq!(run(&c, &zhh, NOW)["sport"]["1"]["name"], "足球");
    // A language without a translation answers the default name.
    let kor = q.with_language("kor");
    assert_eq!(run(&c, &kor, NOW)["sport"]["1"]["name"], "Football");
    // @like with a map: the name in any listed language.
    let like = query(
        json!({"sport": ["id"]}),
        json!({"sport": {"name": {"@like": {"tha": "ฟุต", "eng": "zzz"}}}}),
    );
    assert_eq!(ids(&run(&c, &like, NOW)["sport"]), ["1"]);
    let none = query(
        json!({"sport": ["id"]}),
        json!({"sport": {"name": {"@like": {"eng": "ฟุต"}}}}),
    );
    assert_eq!(run(&c, &none, NOW)["sport"], json!({}));
    assert!(matches!(
        refused(json!({"sport": []}), json!({"sport": {"name": {"@like": {"eng": 5}}}})),
        QueryError::WrongOperandType { field, .. } if field == "name"
    ));
}

#[test]
fn markets_carry_their_type_and_display_fields_and_events_their_order() {
    let a = answer(
        json!({"market": ["type", "market_type", "col_count", "display_key", "express_id"],
               "event": ["order", "price"]}),
        json!({"market": {"type": "P1XP2"}}),
    );
    let m = &a["market"]["10000"];
    assert_eq!(m["type"], "P1XP2");
    assert_eq!(m["market_type"], "P1XP2");
    assert_eq!(m["col_count"], 3);
    assert_eq!(m["display_key"], "WINNER");
    assert_eq!(m["express_id"], 1);
    assert!(m["event"]["100002"]["price"].is_number());
    let orders: Vec<i64> = m["event"]
        .as_object()
        .unwrap()
        .values()
        .map(|e| e["order"].as_i64().unwrap())
        .collect();
    let mut sorted = orders.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), orders.len(), "each event its own order");
}

#[test]
fn games_carry_is_started_and_visible_in_prematch_and_sports_their_type() {
    let a = answer(
        json!({"sport": ["type"], "game": ["is_started", "visible_in_prematch"]}),
        json!({"game": {"is_started": 1}}),
    );
    assert_eq!(a["sport"]["3"]["type"], 0);
    assert_eq!(a["sport"]["3"]["game"]["3000"]["is_started"], true);
    assert_eq!(
        a["sport"]["3"]["game"]["3000"]["visible_in_prematch"],
        false
    );
    assert!(a["sport"].get("1").unwrap()["game"].get("1000").is_none());
}

#[test]
fn a_wrong_type_on_a_known_field_still_names_the_field() {
    match refused(json!({"game": []}), json!({"game": {"type": "live"}})) {
        e @ QueryError::WrongOperandType { .. } => {
            assert!(e.to_string().contains("game.type"), "{e}")
        }
        other => panic!("{other:?}"),
    }
}
