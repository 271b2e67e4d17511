//! Catalogue rules, one test per rule.

use rust_decimal_macros::dec;

use super::testgen::{event, game, market, small};
use super::*;

#[test]
fn a_child_needs_its_parent() {
    let mut c = small();
    let err = c.insert_game(game(1, 999, "A", None)).unwrap_err();
    assert_eq!(
        err,
        CatalogueError::MissingParent {
            level: Level::Game,
            id: 1,
            parent: Level::Competition,
            parent_id: 999
        }
    );
    assert!(c.games().get(&1).is_none());
    let err = c.insert_event(event(5, 77, "P1", dec!(2))).unwrap_err();
    assert!(matches!(
        err,
        CatalogueError::MissingParent {
            parent: Level::Market,
            ..
        }
    ));
}

#[test]
fn removing_a_row_removes_its_descendants() {
    let mut c = small();
    c.remove_sport(1).unwrap();
    assert!(c.regions().get(&10).is_none());
    assert!(c.competitions().get(&100).is_none());
    assert!(c.games().get(&1000).is_none());
    assert!(c.markets().is_empty());
    assert!(c.events().is_empty());
    assert_eq!(c.games().len(), 1, "basketball untouched");
}

#[test]
fn markets_count_follows_the_markets_held() {
    let mut c = small();
    assert_eq!(c.games()[&1000].markets_count, 1);
    c.insert_market(market(10001, 1000, "OverUnder")).unwrap();
    assert_eq!(c.games()[&1000].markets_count, 2);
    c.update_game(1000, |g| g.markets_count = 99).unwrap();
    assert_eq!(c.games()[&1000].markets_count, 2);
    c.remove_market(10000);
    assert_eq!(c.games()[&1000].markets_count, 1);
    c.update_market(10001, |m| m.game_id = 3000).unwrap();
    assert_eq!(c.games()[&1000].markets_count, 0);
    assert_eq!(c.games()[&3000].markets_count, 1);
}

#[test]
fn prices_keep_three_places_and_lines_lose_trailing_zeros() {
    let mut c = small();
    assert_eq!(c.events()[&100001].price.to_string(), "2.100");
    c.update_event(100001, |e| e.price = dec!(1.23456)).unwrap();
    assert_eq!(c.events()[&100001].price.to_string(), "1.235");
    c.update_market(10000, |m| m.base = Some(dec!(-0.750)))
        .unwrap();
    assert_eq!(c.markets()[&10000].base.unwrap().to_string(), "-0.75");
}

#[test]
fn an_update_keeps_the_id_and_moves_the_row_under_a_new_parent() {
    let mut c = small();
    c.update_game(1000, |g| {
        g.id = 42;
        g.competition_id = 300;
    })
    .unwrap();
    assert!(c.games().get(&42).is_none());
    assert_eq!(c.games_of(300).count(), 2);
    assert_eq!(c.games_of(100).count(), 0);
    assert!(matches!(
        c.update_game(1000, |g| g.competition_id = 5),
        Err(CatalogueError::MissingParent { .. })
    ));
    assert_eq!(
        c.games()[&1000].competition_id,
        300,
        "refused update changes nothing"
    );
    assert_eq!(
        c.update_event(1, |_| ()),
        Err(CatalogueError::NotFound {
            level: Level::Event,
            id: 1
        })
    );
}

#[test]
fn lineage_names_the_game_ancestors() {
    let c = small();
    let l = c.lineage(1000).unwrap();
    assert_eq!(l.sport.name, "Football");
    assert_eq!(l.region.name, "England");
    assert_eq!(l.competition.name, "Premier League");
    assert!(c.lineage(1).is_none());
}

#[test]
fn the_fixture_shape_round_trips_and_checks_parents() {
    let c = small();
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["sport"].as_array().unwrap().len(), 2);
    assert_eq!(json["event"][0]["price"], "2.100");
    let back: Catalogue = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back, c);
    let mut broken = json;
    broken["game"][0]["competition_id"] = 12345.into();
    assert!(serde_json::from_value::<Catalogue>(broken).is_err());
}

#[test]
fn levels_parse_from_their_wire_names() {
    assert_eq!("competition".parse::<Level>(), Ok(Level::Competition));
    assert!("games".parse::<Level>().is_err());
    assert_eq!(Level::Sport.parent(), None);
    assert_eq!(Level::Market.parent(), Some(Level::Game));
    assert_eq!(Level::Event.child(), None);
}

// Search.

#[test]
fn search_ignores_case_and_spaces_in_team_and_competition_names() {
    let c = small();
    let groups = search(&c, "ARS ENAL", "zhh");
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].results[0].game.id, 1000);
    assert_eq!(search(&c, "premierleague", "zhh")[0].results.len(), 1);
    assert_eq!(search(&c, "celt", "zhh")[0].name, "Basketball");
    assert!(search(&c, "nothing here", "eng").is_empty());
}

#[test]
fn search_needs_four_characters_in_most_languages() {
    let c = small();
    assert!(search(&c, "Ars", "zhh").is_empty());
    assert!(search(&c, "A r s", "rus").is_empty(), "spaces do not count");
    assert_eq!(search(&c, "Arse", "zhh").len(), 1);
    assert_eq!(min_term_length("tur"), 4);
}

#[test]
fn search_needs_one_character_in_korean_chinese_traditional_english_and_thai() {
    for language in ["kor", "cht", "zht", "chi", "eng", "tha", "ENG"] {
        assert_eq!(min_term_length(language), 1, "{language}");
    }
    let c = small();
    assert!(!search(&c, "a", "eng").is_empty());
    assert!(
        search(&c, "   ", "eng").is_empty(),
        "only spaces is no term"
    );
}

#[test]
fn search_counts_characters_not_bytes() {
    let mut c = small();
    c.insert_game(game(1001, 100, "전북 현대", Some("울산")))
        .unwrap();
    assert_eq!(search(&c, "전북", "kor")[0].results[0].game.id, 1001);
    assert!(search(&c, "전북현", "zhh").is_empty(), "3 characters < 4");
    assert_eq!(search(&c, "전북 현대", "zhh").len(), 1);
}

#[test]
fn search_groups_by_sport_in_sport_order_and_games_by_kick_off() {
    let mut c = small();
    c.update_sport(3, |s| s.order = 0).unwrap();
    c.insert_game(Game {
        start_ts: 1_600_000_000,
        ..game(1002, 100, "Everton", Some("Arsenal"))
    })
    .unwrap();
    let groups = search(&c, "a", "eng");
    let names: Vec<_> = groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["Basketball", "Football"]);
    let ids: Vec<_> = groups[1].results.iter().map(|r| r.game.id).collect();
    assert_eq!(ids, [1002, 1000]);
    assert_eq!(groups[1].alias, "Football");
    assert_eq!(groups[1].results[0].competition.name, "Premier League");
}

#[test]
fn search_results_have_the_spec_shape() {
    let mut c = small();
    c.insert_game(game(1003, 100, "Outright winner", None))
        .unwrap();
    let json = serde_json::to_value(search(&c, "outright", "eng")).unwrap();
    assert_eq!(
        json,
        serde_json::json!([{
            "name": "Football", "alias": "Football",
            "results": [{
                "game": {"id": 1003, "type": 0, "team1_name": "Outright winner",
                         "start_ts": 1_700_000_000},
                "competition": {"name": "Premier League"}
            }]
        }])
    );
}

#[test]
fn game_links_go_to_prematch_for_types_0_and_2_and_live_for_type_1() {
    let mut g = game(7, 1, "A", None);
    assert_eq!(game_link(&g), "/prematch/game/7");
    g.game_type = GameType::AlsoPrematch;
    assert_eq!(game_link(&g), "/prematch/game/7");
    g.game_type = GameType::Live;
    assert_eq!(game_link(&g), "/live/game/7");
    assert_eq!(link_for(9, GameType::Live), "/live/game/9");
}

#[test]
fn market_each_way_and_sp_terms_are_optional_on_the_wire() {
    // Stored catalogues and fixtures from before the terms read as "off".
    let old =
        serde_json::json!({"id": 5, "game_id": 4, "market_type": "P1XP2", "name": "Match Result"});
    let m: Market = serde_json::from_value(old.clone()).unwrap();
    assert!(!m.ew_allowed && !m.sp_allowed);
    assert_eq!((m.ew_places, m.ew_coeff), (None, None));
    let back = serde_json::to_value(&m).unwrap();
    for absent in ["ew_allowed", "ew_places", "ew_coeff", "sp_allowed"] {
        assert!(back.get(absent).is_none(), "{absent} written when off");
    }
    assert_eq!(serde_json::from_value::<Market>(back).unwrap(), m);

    // With the terms: a number or a string for the coefficient.
    let racing = serde_json::json!({"id": 6, "game_id": 4, "market_type": "RaceWinner",
        "name": "Winner", "ew_allowed": true, "ew_places": 3, "ew_coeff": 0.25, "sp_allowed": true});
    let m: Market = serde_json::from_value(racing).unwrap();
    assert!(m.ew_allowed && m.sp_allowed);
    assert_eq!((m.ew_places, m.ew_coeff), (Some(3), Some(dec!(0.25))));
    let back = serde_json::to_value(&m).unwrap();
    assert_eq!(back["ew_allowed"], true);
    assert_eq!(back["ew_places"], 3);
    assert_eq!(back["ew_coeff"], "0.25");
    assert_eq!(back["sp_allowed"], true);
    assert_eq!(serde_json::from_value::<Market>(back).unwrap(), m);
}

#[test]
fn a_catalogue_with_each_way_terms_round_trips_and_keeps_the_coefficient_tidy() {
    let mut c = small();
    let mut racing = market(10009, 1000, "RaceWinner");
    racing.ew_allowed = true;
    racing.ew_places = Some(2);
    racing.ew_coeff = Some(dec!(0.2500));
    racing.sp_allowed = true;
    c.insert_market(racing).unwrap();
    assert_eq!(c.markets()[&10009].ew_coeff.unwrap().to_string(), "0.25");
    let json = serde_json::to_value(&c).unwrap();
    let back: Catalogue = serde_json::from_value(json).unwrap();
    assert_eq!(back, c);
    assert!(back.markets()[&10009].sp_allowed);
    assert!(!back.markets()[&10000].ew_allowed);
}
