//! Odds display rules; the shared vectors are the contract with the client.

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde::Deserialize;

use super::*;

#[derive(Deserialize)]
struct Vector {
    price: String,
    format: String,
    ladder: bool,
    expected: String,
}

#[test]
fn every_shared_vector_displays_as_expected() {
    let vectors: Vec<Vector> =
        serde_json::from_str(include_str!("../../testdata/odds_vectors.json")).unwrap();
    assert!(vectors.len() >= 60);
    let standard = FractionalLadder::standard();
    for v in &vectors {
        let price: Decimal = v.price.parse().unwrap();
        let format: OddsFormat = v.format.parse().unwrap();
        let ladder = v.ladder.then_some(&standard);
        assert_eq!(
            display(price, format, ladder),
            v.expected,
            "{} as {}{}",
            v.price,
            v.format,
            if v.ladder { " (ladder)" } else { "" }
        );
    }
    for format in OddsFormat::ALL {
        assert!(
            vectors.iter().any(|v| v.format == format.name()),
            "{format} covered"
        );
    }
}

#[test]
fn decimal_shows_two_places() {
    assert_eq!(display(dec!(1.5), OddsFormat::Decimal, None), "1.50");
    assert_eq!(display(dec!(1.855), OddsFormat::Decimal, None), "1.86");
}

#[test]
fn american_is_plus_above_evens_and_minus_at_or_below() {
    assert_eq!(display(dec!(2.5), OddsFormat::American, None), "+150");
    assert_eq!(display(dec!(2.00), OddsFormat::American, None), "-100");
    assert_eq!(display(dec!(1.5), OddsFormat::American, None), "-200");
}

#[test]
fn malay_and_indo_turn_negative_on_opposite_sides_of_evens() {
    assert_eq!(display(dec!(2.5), OddsFormat::Malay, None), "-0.67");
    assert_eq!(display(dec!(1.5), OddsFormat::Malay, None), "0.50");
    assert_eq!(display(dec!(2.5), OddsFormat::Indo, None), "1.50");
    assert_eq!(display(dec!(1.5), OddsFormat::Indo, None), "-2.00");
    assert_eq!(display(dec!(1000), OddsFormat::Malay, None), "-0.00");
}

#[test]
fn fractional_without_a_ladder_is_the_simplest_exact_fraction() {
    assert_eq!(display(dec!(2.75), OddsFormat::Fractional, None), "7/4");
    assert_eq!(
        display(dec!(1.333), OddsFormat::Fractional, None),
        "333/1000"
    );
}

#[test]
fn fractional_with_a_ladder_takes_the_nearest_step_and_shorter_on_a_tie() {
    let ladder = FractionalLadder::standard();
    assert_eq!(
        display(dec!(1.333), OddsFormat::Fractional, Some(&ladder)),
        "1/3"
    );
    assert_eq!(
        display(dec!(8.75), OddsFormat::Fractional, Some(&ladder)),
        "15/2"
    );
    assert_eq!(
        display(dec!(2000), OddsFormat::Fractional, Some(&ladder)),
        "100/1"
    );
}

#[test]
fn prices_at_or_below_one_show_a_dash_except_in_decimal() {
    for format in OddsFormat::ALL {
        let expected = if format == OddsFormat::Decimal {
            "1.00"
        } else {
            "-"
        };
        assert_eq!(display(dec!(1), format, None), expected);
    }
}

#[test]
fn formats_parse_from_their_names_case_insensitively() {
    for format in OddsFormat::ALL {
        assert_eq!(format.name().parse::<OddsFormat>(), Ok(format));
        assert_eq!(
            format.name().to_uppercase().parse::<OddsFormat>(),
            Ok(format)
        );
    }
    assert!("hong kong".parse::<OddsFormat>().is_err());
    assert_eq!(
        serde_json::to_value(OddsFormat::HongKong).unwrap(),
        serde_json::json!("hongkong")
    );
}

#[test]
fn the_standard_ladder_runs_from_100_to_1_down_to_1_to_100() {
    let ladder = FractionalLadder::standard();
    assert_eq!(
        FractionalLadder::new(ladder.steps().to_vec()),
        Ok(ladder.clone())
    );
    assert!(ladder.steps().len() >= 90);
    assert_eq!(ladder.steps().first(), Some(&(100, 1)));
    assert_eq!(ladder.steps().last(), Some(&(1, 100)));
}

#[test]
fn a_configured_ladder_must_be_fractions_in_descending_order() {
    let parse =
        |steps: &[&str]| serde_json::from_value::<FractionalLadder>(serde_json::json!(steps));
    assert_eq!(
        parse(&["2/1", "1/1", "1/2"]).unwrap().steps(),
        &[(2, 1), (1, 1), (1, 2)]
    );
    assert!(parse(&[]).is_err());
    assert!(parse(&["1/1", "2/1"]).is_err());
    assert!(
        parse(&["1/1", "2/2"]).is_err(),
        "equal values are not descending"
    );
    assert!(parse(&["1/0"]).is_err());
    assert!(parse(&["one/two"]).is_err());
    assert_eq!(FractionalLadder::new(vec![]), Err(LadderError::Empty));
    let json = serde_json::to_value(FractionalLadder::new(vec![(6, 4), (4, 6)]).unwrap()).unwrap();
    assert_eq!(json, serde_json::json!(["6/4", "4/6"]));
}
