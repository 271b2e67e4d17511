//! The command line (clap): every command has `--help`, bad arguments are
//! refused with exit code 2 before anything starts.

use std::process::{Command, Output};

fn api(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_api"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the api binary runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn help_lists_every_command_and_each_command_has_its_own_help() {
    let help = api(&["--help"]);
    assert!(help.status.success());
    let top = text(&help);
    for command in ["serve", "migrate", "projections", "audit", "staff", "bench"] {
        assert!(top.contains(command), "{command} missing from\n{top}");
    }
    assert!(
        !top.contains("swarm-clients"),
        "internal commands stay hidden"
    );
    for (args, expect) in [
        (vec!["projections", "--help"], "rebuild"),
        (vec!["audit", "verify", "--help"], "--keep"),
        (vec!["audit", "checkpoints", "--help"], "--now"),
        (vec!["staff", "create", "--help"], "<ROLE>"),
        (vec!["bench", "--help"], "casino"),
        (vec!["bench", "rebuild", "--help"], "--events"),
        (vec!["bench", "casino", "--help"], "[default: 32]"),
    ] {
        let out = api(&args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(expect), "{args:?}: {}", text(&out));
    }
}

#[test]
fn bad_arguments_are_refused_with_exit_code_2_and_a_reason() {
    for (args, reason) in [
        (vec!["frob"], "unrecognized subcommand"),
        (
            vec!["bench", "wallet", "--clients", "0"],
            "a number from 1 to 1024",
        ),
        (vec!["bench", "rebuild", "--events", "5"], "--events"),
        (vec!["bench", "bets", "--store", "mysql"], "possible values"),
        (vec!["projections", "parked", "closed"], "possible values"),
        (vec!["staff", "create", "eve", "boss"], "possible values"),
        (
            vec!["audit", "checkpoints", "--later"],
            "unexpected argument",
        ),
    ] {
        let out = api(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(reason), "{args:?}: {}", text(&out));
    }
}

#[test]
fn migrate_applies_the_migrations_of_the_store_it_is_given() {
    let file = std::env::temp_dir().join(format!("cli-migrate-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let out = Command::new(env!("CARGO_BIN_EXE_api"))
        .arg("migrate")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .env("DATABASE_URL", format!("sqlite://{}", file.display()))
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("migrations applied (sqlite)"),
        "{}",
        text(&out)
    );
}

/// `bench bets --store sqlite` removes its store when it ends: the file
/// and its WAL (a few hundred MB after a full run) used to stay behind.
#[test]
fn the_sqlite_bet_benchmark_leaves_no_store_behind() {
    let dir = std::env::temp_dir().join(format!("cli-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_api"))
        .args([
            "bench",
            "bets",
            "--clients",
            "2",
            "--seconds",
            "1",
            "--store",
            "sqlite",
        ])
        .env("RUST_LOG", "warn")
        .env("TMPDIR", &dir)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("the api binary runs");
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("half the peak rate"), "{}", text(&out));
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(left.is_empty(), "left behind: {left:?}");
}
