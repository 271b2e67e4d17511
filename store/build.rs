// `sqlx::migrate!` embeds ../migrations at compile time: a new migration
// must rebuild this crate even when no Rust file changed.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
