//! Bind markers for SQLite's statements with many parameters.
//!
//! The SQL is shared by both stores and numbers its parameters `$1, $2,
//! ...` as Postgres wants. SQLite takes `$N` as a *named* parameter: it
//! looks each name up in a list when it prepares the statement, and sqlx
//! asks each parameter's name when it binds, a walk of that list each
//! time. A statement of n parameters costs O(n^2): a seal batch's 4,000
//! took a third of the process's CPU. Bare `?` markers are numbered in
//! order of appearance and named nothing, so both walks go away.

use std::borrow::Cow;

use sqlx::AnyConnection;

/// `sql` with `$1, $2, ... $n` as bare `?` markers when `conn` is SQLite
/// and the markers appear in the text exactly in that order, once each
/// (then `?` binds the same values); otherwise `sql` unchanged. Quoted
/// text ('...', "...") is left alone.
pub fn for_conn<'a>(conn: &AnyConnection, sql: &'a str) -> Cow<'a, str> {
    if conn.backend_name() == "SQLite" {
        anonymous(sql).map_or(Cow::Borrowed(sql), Cow::Owned)
    } else {
        Cow::Borrowed(sql)
    }
}

/// `sql` with its `$N` markers as `?`, when they run 1, 2, 3 ... in
/// order of appearance; `None` when they do not (a marker used twice or
/// out of order, which `?` cannot express) or there are none.
pub fn anonymous(sql: &str) -> Option<String> {
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut next = 1u64;
    let mut quote: Option<u8> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            // Comments and bracketed or backquoted names: left alone.
            None if b == b'`' || b == b'[' => return None,
            None if (b == b'-' && bytes.get(i + 1) == Some(&b'-'))
                || (b == b'/' && bytes.get(i + 1) == Some(&b'*')) =>
            {
                return None
            }
            None if b == b'$' => {
                let digits = bytes[i + 1..]
                    .iter()
                    .take_while(|d| d.is_ascii_digit())
                    .count();
                if digits > 0 {
                    let n: u64 = sql[i + 1..i + 1 + digits].parse().ok()?;
                    if n != next {
                        return None;
                    }
                    next += 1;
                    out.push_str(&sql[copied..i]);
                    out.push('?');
                    i += 1 + digits;
                    copied = i;
                    continue;
                }
            }
            None => {}
        }
        i += 1;
    }
    if next == 1 {
        return None;
    }
    out.push_str(&sql[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::anonymous;

    #[test]
    fn markers_in_order_become_bare_question_marks() {
        assert_eq!(
            anonymous("INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)").as_deref(),
            Some("INSERT INTO t (a, b) VALUES (?, ?), (?, ?)")
        );
        assert_eq!(
            anonymous(
                "SELECT * FROM t WHERE a = $1 AND b IN ($2, $3, $4, $5, $6, $7, $8, $9, $10)"
            )
            .as_deref(),
            Some("SELECT * FROM t WHERE a = ? AND b IN (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        );
    }

    #[test]
    fn markers_used_twice_or_out_of_order_are_left_as_they_are() {
        assert_eq!(anonymous("UPDATE t SET a = $2 WHERE b = $1"), None);
        assert_eq!(anonymous("SELECT $1, $1"), None);
        assert_eq!(anonymous("SELECT 1"), None);
    }

    #[test]
    fn statements_with_comments_or_bracketed_names_are_left_as_they_are() {
        assert_eq!(anonymous("SELECT $1 -- the $2\n, $2"), None);
        assert_eq!(anonymous("SELECT $1 /* $2 */, $2"), None);
        assert_eq!(anonymous("SELECT [a$1] FROM t WHERE x = $1"), None);
    }

    #[test]
    fn quoted_text_is_not_a_marker() {
        assert_eq!(
            anonymous("SELECT json_extract(p, '$.a$1'), $1 FROM \"t$2\"").as_deref(),
            Some("SELECT json_extract(p, '$.a$1'), ? FROM \"t$2\"")
        );
    }
}
