//! The `get` command's query: `what` names the levels (and fields) to
//! answer, `where` filters rows on any level. Parsing is liberal where the
//! real protocol is (a field a level does not have is left out of the
//! answer, and a condition on one is ignored) and strict on types: a known
//! field with a wrong operand, an unknown operator or a malformed shape is
//! a typed `QueryError` (protocol code 3) naming the field, never a panic
//! and never a silently empty answer.
//!
//! `what`: `{"<level>": <selection>}`; a selection is a list of field
//! names (`["id", "name"]`), the same list nested once (`[["id",
//! "name"]]`), an empty list (every field) or `"@count"` (also
//! `["@count"]`): the number of matching rows in place of the rows. A
//! count must be the deepest level asked.
//!
//! `where`: `{"<level>": {<condition>...}}` (or `null`: no conditions);
//! the conditions of a level all hold (and). A condition is `"<field>":
//! <operand>` or one of `"@or": [{<conditions>}, ...]`, `"@and":
//! [{<conditions>}, ...]`, `"@node_limit": n` (at most n rows under each
//! parent), `"@limit": n` (at most n rows of the level in the whole
//! answer). An operand is a plain value (equality) or an object of
//! operators, all of which hold: `@in` / `@nin` (list), `@ne`, `@gt`,
//! `@gte`, `@lt`, `@lte` (number, or string for text fields; a number may
//! be `{"@now": seconds}`, the time of the answer plus seconds), `@now`
//! (an object of operators on the field less the time of the answer:
//! `{"@now": {"@gte": 0, "@lt": 3600}}` = within the next hour), `@like`
//! (case-insensitive substring on a text field: a string, or a map
//! language -> string that holds when the name in any of those languages
//! contains its term), and `@or` / `@and` (list of operands) to combine
//! operators on one field. `null` is equality with an absent optional
//! field. Numbers and decimals take JSON numbers or numeric strings;
//! flags take true/false or 1/0; `game.info` cannot be filtered.

use std::cmp::Ordering;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::{Map, Value};

use super::schema::{self, Ctx, Kind, Scalar};
use crate::catalogue::Level;

/// Why a `get` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("'{0}' must be an object")]
    NotAnObject(&'static str),
    #[error("'what' names no level")]
    NothingAsked,
    #[error("unknown level '{0}' (accepted: sport, region, competition, game, market, event)")]
    UnknownLevel(String),
    #[error("{level} has no field '{field}'")]
    UnknownField { level: Level, field: String },
    #[error("unknown operator '{0}'")]
    UnknownOperator(String),
    #[error("operator '{0}' cannot be used here")]
    MisplacedOperator(String),
    #[error("{level}.{field} {operator}: expected {expected}")]
    WrongOperandType {
        level: Level,
        field: String,
        operator: String,
        expected: &'static str,
    },
    #[error("{level}.{field} cannot be filtered")]
    NotFilterable { level: Level, field: String },
    #[error("@node_limit on {0} must be a whole number of at least 0")]
    BadNodeLimit(Level),
    #[error("@limit on {0} must be a whole number of at least 0")]
    BadLimit(Level),
    #[error(
        "what.{0} must be a list of field names (or a list of one such list), [] or \"@count\""
    )]
    BadSelection(Level),
    #[error("@count on {0} must be the deepest level asked")]
    CountNotDeepest(Level),
    #[error("unknown source '{0}' (accepted: betting)")]
    UnknownSource(String),
    #[error("the query is too large: at most {0} conditions and list items")]
    TooLarge(usize),
    #[error("'{field}' must be {expected}")]
    BadParam {
        field: &'static str,
        expected: &'static str,
    },
}

/// Conditions, operators and list items one query may hold in all (a
/// subscription's query runs again on every catalogue change).
pub const MAX_QUERY_TERMS: usize = 1_000;

/// What to answer on one level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Every field (`[]`).
    All,
    /// These fields.
    Fields(Vec<&'static str>),
    /// The number of matching rows (`"@count"`).
    Count,
}

/// A parsed `get` query, with the language its names are answered in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    levels: [LevelQuery; 6],
    language: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct LevelQuery {
    selection: Option<Selection>,
    conditions: Vec<Condition>,
    node_limit: Option<usize>,
    limit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
enum Condition {
    Field(&'static str, Predicate),
    Or(Vec<Vec<Condition>>),
    And(Vec<Vec<Condition>>),
}

#[derive(Debug, Clone, PartialEq)]
enum Predicate {
    Eq(Operand),
    Ne(Operand),
    In(Vec<Operand>),
    Nin(Vec<Operand>),
    Compare(Ordering, bool, Operand),
    Like(String),
    /// `@like` with a map: (language, lowercase term) pairs, any holds.
    LikeIn(Vec<(String, String)>),
    /// `@now` as an operator: the inner predicate on (value - now).
    SinceNow(Box<Predicate>),
    All(Vec<Predicate>),
    Any(Vec<Predicate>),
}

#[derive(Debug, Clone, PartialEq)]
enum Operand {
    Num(Decimal),
    /// `{"@now": seconds}`: the time of the answer plus seconds.
    Now(i64),
    Str(String),
    Bool(bool),
    Null,
}

/// The `get` command's params: `{source: "betting", what, where, subscribe}`.
#[derive(Debug, Clone, PartialEq)]
pub struct GetRequest {
    pub query: Query,
    pub subscribe: bool,
}

impl GetRequest {
    /// `source` may be left out (it defaults to "betting"); `where` may be
    /// left out or null; `subscribe` defaults to false.
    pub fn parse(params: &Value) -> Result<Self, QueryError> {
        let params = params
            .as_object()
            .ok_or(QueryError::NotAnObject("params"))?;
        match params.get("source") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s == "betting" => {}
            Some(other) => return Err(QueryError::UnknownSource(text_of(other))),
        }
        let subscribe = match params.get("subscribe") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(bad_param("subscribe", "true or false")),
        };
        let what = params.get("what").unwrap_or(&Value::Null);
        let where_ = params.get("where").unwrap_or(&Value::Null);
        Ok(GetRequest {
            query: Query::parse(what, where_)?,
            subscribe,
        })
    }
}

fn bad_param(field: &'static str, expected: &'static str) -> QueryError {
    QueryError::BadParam { field, expected }
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Query {
    /// This query answering names in `language` (a session's language;
    /// rows without a translation answer their default name).
    pub fn with_language(mut self, language: &str) -> Self {
        self.language = Some(language.to_string());
        self
    }

    /// The language names are answered in ("eng" unless set).
    pub fn language(&self) -> &str {
        self.language.as_deref().unwrap_or("eng")
    }

    /// Whether an answer depends on the time (`@now`), so it may change
    /// with no catalogue change.
    pub fn uses_now(&self) -> bool {
        self.levels
            .iter()
            .flat_map(|l| &l.conditions)
            .any(Condition::uses_now)
    }

    /// Parses `what` and `where` (`where` may be `null`).
    pub fn parse(what: &Value, where_: &Value) -> Result<Self, QueryError> {
        let mut query = Query::default();
        let what = what.as_object().ok_or(QueryError::NotAnObject("what"))?;
        for (name, selection) in what {
            let level = parse_level(name)?;
            query.levels[level.depth()].selection = Some(parse_selection(level, selection)?);
        }
        query.check_asked()?;
        match where_ {
            Value::Null => {}
            Value::Object(levels) => {
                for (name, conditions) in levels {
                    let level = parse_level(name)?;
                    query.parse_level_where(level, conditions)?;
                }
            }
            _ => return Err(QueryError::NotAnObject("where")),
        }
        if query.terms() > MAX_QUERY_TERMS {
            return Err(QueryError::TooLarge(MAX_QUERY_TERMS));
        }
        Ok(query)
    }

    /// Conditions, operators and list items, all levels together.
    pub fn terms(&self) -> usize {
        self.levels
            .iter()
            .flat_map(|l| &l.conditions)
            .map(Condition::terms)
            .sum()
    }

    /// The selection asked on `level`, if any.
    pub fn selection(&self, level: Level) -> Option<&Selection> {
        self.levels[level.depth()].selection.as_ref()
    }

    /// The levels asked, top down.
    pub fn asked(&self) -> impl Iterator<Item = Level> + '_ {
        Level::ALL
            .into_iter()
            .filter(|l| self.selection(*l).is_some())
    }

    /// Whether `where` filters rows on `level` (node limits aside).
    pub fn filters(&self, level: Level) -> bool {
        !self.levels[level.depth()].conditions.is_empty()
    }

    /// The `@node_limit` of `level`, if any.
    pub fn node_limit(&self, level: Level) -> Option<usize> {
        self.levels[level.depth()].node_limit
    }

    /// The `@limit` of `level` (rows in the whole answer), if any.
    pub fn limit(&self, level: Level) -> Option<usize> {
        self.levels[level.depth()].limit
    }

    pub(crate) fn matches(&self, level: Level, row: schema::Row<'_>, ctx: &Ctx<'_>) -> bool {
        self.levels[level.depth()]
            .conditions
            .iter()
            .all(|c| c.holds(row, ctx))
    }

    fn check_asked(&self) -> Result<(), QueryError> {
        let deepest = self.asked().last().ok_or(QueryError::NothingAsked)?;
        match self
            .asked()
            .find(|l| self.selection(*l) == Some(&Selection::Count))
        {
            Some(count) if count != deepest => Err(QueryError::CountNotDeepest(count)),
            _ => Ok(()),
        }
    }

    fn parse_level_where(&mut self, level: Level, conditions: &Value) -> Result<(), QueryError> {
        if conditions.is_null() {
            return Ok(());
        }
        let object = conditions
            .as_object()
            .ok_or(QueryError::NotAnObject("where.<level>"))?;
        let slot = &mut self.levels[level.depth()];
        for (key, value) in object {
            match key.as_str() {
                "@node_limit" => slot.node_limit = Some(parse_node_limit(level, value)?),
                "@limit" => {
                    let limit =
                        parse_node_limit(level, value).map_err(|_| QueryError::BadLimit(level))?;
                    slot.limit = Some(limit);
                }
                _ => {
                    if let Some(condition) = parse_condition(level, key, value)? {
                        slot.conditions.push(condition);
                    }
                }
            }
        }
        Ok(())
    }
}

fn parse_level(name: &str) -> Result<Level, QueryError> {
    Level::from_str(name).map_err(|_| QueryError::UnknownLevel(name.to_string()))
}

/// Field names the level does not have are left out of the answer.
fn parse_selection(level: Level, value: &Value) -> Result<Selection, QueryError> {
    let mut list = match value {
        Value::String(s) if s == "@count" => return Ok(Selection::Count),
        Value::Array(list) => list,
        _ => return Err(QueryError::BadSelection(level)),
    };
    // `[[...]]`: the list nested once.
    if let [Value::Array(inner)] = list.as_slice() {
        list = inner;
    }
    if list.is_empty() {
        return Ok(Selection::All);
    }
    if list.len() == 1 && list[0] == "@count" {
        return Ok(Selection::Count);
    }
    let mut names = Vec::new();
    for item in list {
        let name = item.as_str().ok_or(QueryError::BadSelection(level))?;
        if let Some((name, _)) = schema::field(level, name) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    Ok(Selection::Fields(names))
}

fn parse_node_limit(level: Level, value: &Value) -> Result<usize, QueryError> {
    value
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or(QueryError::BadNodeLimit(level))
}

/// One `key: value` of a level's conditions; `None` for a field the
/// level does not have (the condition is ignored, as the real protocol
/// answers clients that filter on fields of another feed).
fn parse_condition(
    level: Level,
    key: &str,
    value: &Value,
) -> Result<Option<Condition>, QueryError> {
    match key {
        "@or" => Ok(Some(Condition::Or(parse_groups(level, key, value)?))),
        "@and" => Ok(Some(Condition::And(parse_groups(level, key, value)?))),
        op if op.starts_with('@') => Err(operator_error(op)),
        field => {
            let Some((name, kind)) = schema::field(level, field) else {
                return Ok(None);
            };
            if kind == Kind::Object {
                return Err(QueryError::NotFilterable {
                    level,
                    field: field.to_string(),
                });
            }
            let ctx = FieldCtx { level, name, kind };
            Ok(Some(Condition::Field(name, ctx.predicate(value)?)))
        }
    }
}

/// `@or` / `@and` at level position: a list of condition objects.
fn parse_groups(level: Level, op: &str, value: &Value) -> Result<Vec<Vec<Condition>>, QueryError> {
    let list = value.as_array().ok_or_else(|| group_error(level, op))?;
    list.iter()
        .map(|group| {
            let object = group.as_object().ok_or_else(|| group_error(level, op))?;
            object
                .iter()
                .filter_map(|(k, v)| match k.as_str() {
                    "@node_limit" | "@limit" => Some(Err(QueryError::MisplacedOperator(k.clone()))),
                    _ => parse_condition(level, k, v).transpose(),
                })
                .collect()
        })
        .collect()
}

fn group_error(level: Level, op: &str) -> QueryError {
    QueryError::WrongOperandType {
        level,
        field: String::new(),
        operator: op.to_string(),
        expected: "a list of condition objects",
    }
}

const FIELD_OPERATORS: [&str; 11] = [
    "@in", "@nin", "@ne", "@gt", "@gte", "@lt", "@lte", "@like", "@now", "@or", "@and",
];

fn operator_error(op: &str) -> QueryError {
    let known =
        FIELD_OPERATORS.contains(&op) || op == "@node_limit" || op == "@limit" || op == "@count";
    if known {
        QueryError::MisplacedOperator(op.to_string())
    } else {
        QueryError::UnknownOperator(op.to_string())
    }
}

/// The field an operand is parsed for.
struct FieldCtx {
    level: Level,
    name: &'static str,
    kind: Kind,
}

impl FieldCtx {
    fn predicate(&self, value: &Value) -> Result<Predicate, QueryError> {
        match value {
            Value::Object(ops) => self.operators(ops),
            Value::Array(_) => Err(self.wrong("=", "a single value (use @in for a list)")),
            plain => Ok(Predicate::Eq(self.operand("=", plain)?)),
        }
    }

    fn operators(&self, ops: &Map<String, Value>) -> Result<Predicate, QueryError> {
        let parts = ops
            .iter()
            .map(|(op, v)| self.operator(op, v))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Predicate::All(parts))
    }

    fn operator(&self, op: &str, value: &Value) -> Result<Predicate, QueryError> {
        match op {
            "@in" => Ok(Predicate::In(self.operand_list(op, value)?)),
            "@nin" => Ok(Predicate::Nin(self.operand_list(op, value)?)),
            "@ne" => Ok(Predicate::Ne(self.operand(op, value)?)),
            "@now" => self.since_now(value),
            "@gt" => self.compare(op, Ordering::Greater, false, value),
            "@gte" => self.compare(op, Ordering::Greater, true, value),
            "@lt" => self.compare(op, Ordering::Less, false, value),
            "@lte" => self.compare(op, Ordering::Less, true, value),
            "@like" => self.like(value),
            "@or" => Ok(Predicate::Any(self.predicate_list(op, value)?)),
            "@and" => Ok(Predicate::All(self.predicate_list(op, value)?)),
            other => Err(operator_error(other)),
        }
    }

    fn compare(
        &self,
        op: &str,
        ord: Ordering,
        or_equal: bool,
        value: &Value,
    ) -> Result<Predicate, QueryError> {
        match self.operand(op, value)? {
            Operand::Null | Operand::Bool(_) => {
                Err(self.wrong(op, "a number, or a string on a text field"))
            }
            operand => Ok(Predicate::Compare(ord, or_equal, operand)),
        }
    }

    fn like(&self, value: &Value) -> Result<Predicate, QueryError> {
        const EXPECTED: &str = "a string or a map of language to string, on a text field";
        match (self.kind, value) {
            (Kind::Str, Value::String(s)) => Ok(Predicate::Like(s.to_lowercase())),
            (Kind::Str, Value::Object(terms)) if !terms.is_empty() => terms
                .iter()
                .map(|(language, term)| match term {
                    Value::String(t) => Ok((language.clone(), t.to_lowercase())),
                    _ => Err(self.wrong("@like", EXPECTED)),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Predicate::LikeIn),
            _ => Err(self.wrong("@like", EXPECTED)),
        }
    }

    /// `{"@now": {"@gte": 0, "@lt": 3600}}`: operators on (value - now),
    /// on a whole-number field (a time).
    fn since_now(&self, value: &Value) -> Result<Predicate, QueryError> {
        if self.kind != Kind::Int {
            return Err(self.wrong("@now", "a time field (whole seconds)"));
        }
        match value {
            Value::Object(ops) if !ops.is_empty() => {
                Ok(Predicate::SinceNow(Box::new(self.operators(ops)?)))
            }
            _ => Err(self.wrong("@now", "an object of operators such as {\"@gte\": 0}")),
        }
    }

    fn operand_list(&self, op: &str, value: &Value) -> Result<Vec<Operand>, QueryError> {
        let list = value.as_array().ok_or_else(|| self.wrong(op, "a list"))?;
        list.iter().map(|v| self.operand(op, v)).collect()
    }

    fn predicate_list(&self, op: &str, value: &Value) -> Result<Vec<Predicate>, QueryError> {
        let list = value
            .as_array()
            .ok_or_else(|| self.wrong(op, "a list of operands"))?;
        list.iter().map(|v| self.predicate(v)).collect()
    }

    /// One value, checked against the field's kind.
    fn operand(&self, op: &str, value: &Value) -> Result<Operand, QueryError> {
        if let Some(offset) = value.as_object().and_then(|o| o.get("@now")) {
            return match (self.kind, offset.as_i64()) {
                (Kind::Int, Some(seconds)) if value.as_object().is_some_and(|o| o.len() == 1) => {
                    Ok(Operand::Now(seconds))
                }
                _ => Err(self.wrong(op, "{\"@now\": whole seconds}, on a time field")),
            };
        }
        let operand = match (self.kind, value) {
            (_, Value::Null) => Some(Operand::Null),
            (Kind::Int | Kind::Dec, Value::Number(n)) => number(n).map(Operand::Num),
            (Kind::Int | Kind::Dec, Value::String(s)) => {
                Decimal::from_str(s.trim()).ok().map(Operand::Num)
            }
            (Kind::Str, Value::String(s)) => Some(Operand::Str(s.clone())),
            (Kind::Bool, Value::Bool(b)) => Some(Operand::Bool(*b)),
            (Kind::Bool, Value::Number(n)) => match n.as_u64() {
                Some(0) => Some(Operand::Bool(false)),
                Some(1) => Some(Operand::Bool(true)),
                _ => None,
            },
            _ => None,
        };
        operand.ok_or_else(|| self.wrong(op, self.expected()))
    }

    fn expected(&self) -> &'static str {
        match self.kind {
            Kind::Int => "a whole number",
            Kind::Dec => "a number or numeric string",
            Kind::Str => "a string",
            Kind::Bool => "true, false, 1 or 0",
            Kind::Object => "nothing (not filterable)",
        }
    }

    fn wrong(&self, op: &str, expected: &'static str) -> QueryError {
        QueryError::WrongOperandType {
            level: self.level,
            field: self.name.to_string(),
            operator: op.to_string(),
            expected,
        }
    }
}

/// A JSON number as a decimal, exactly for integers and through its
/// shortest text for others ("1.85" stays 1.85).
fn number(n: &serde_json::Number) -> Option<Decimal> {
    if let Some(i) = n.as_i64() {
        return Some(Decimal::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(Decimal::from(u));
    }
    let text = n.to_string();
    Decimal::from_str(&text)
        .or_else(|_| Decimal::from_scientific(&text))
        .ok()
}

impl Condition {
    fn terms(&self) -> usize {
        match self {
            Condition::Field(_, predicate) => predicate.terms(),
            Condition::Or(groups) | Condition::And(groups) => {
                1 + groups.iter().flatten().map(Condition::terms).sum::<usize>()
            }
        }
    }

    fn uses_now(&self) -> bool {
        match self {
            Condition::Field(_, predicate) => predicate.uses_now(),
            Condition::Or(groups) | Condition::And(groups) => {
                groups.iter().flatten().any(Condition::uses_now)
            }
        }
    }

    fn holds(&self, row: schema::Row<'_>, ctx: &Ctx<'_>) -> bool {
        match self {
            Condition::Field(name, predicate) => predicate.holds(
                &row.scalar(name, ctx),
                &Subject {
                    row,
                    field: name,
                    ctx,
                },
            ),
            Condition::Or(groups) => groups.iter().any(|g| g.iter().all(|c| c.holds(row, ctx))),
            Condition::And(groups) => groups.iter().all(|g| g.iter().all(|c| c.holds(row, ctx))),
        }
    }
}

/// The row and field a predicate looks at (for `@like` maps and `@now`).
struct Subject<'r, 'c> {
    row: schema::Row<'r>,
    field: &'static str,
    ctx: &'c Ctx<'c>,
}

impl Predicate {
    fn terms(&self) -> usize {
        match self {
            Predicate::In(list) | Predicate::Nin(list) => 1 + list.len(),
            Predicate::LikeIn(terms) => 1 + terms.len(),
            Predicate::SinceNow(inner) => 1 + inner.terms(),
            Predicate::All(parts) | Predicate::Any(parts) => {
                1 + parts.iter().map(Predicate::terms).sum::<usize>()
            }
            _ => 1,
        }
    }

    fn uses_now(&self) -> bool {
        match self {
            Predicate::SinceNow(_) => true,
            Predicate::Eq(o) | Predicate::Ne(o) | Predicate::Compare(_, _, o) => {
                matches!(o, Operand::Now(_))
            }
            Predicate::In(list) | Predicate::Nin(list) => {
                list.iter().any(|o| matches!(o, Operand::Now(_)))
            }
            Predicate::All(parts) | Predicate::Any(parts) => parts.iter().any(Predicate::uses_now),
            Predicate::Like(_) | Predicate::LikeIn(_) => false,
        }
    }

    fn holds(&self, value: &Scalar<'_>, at: &Subject<'_, '_>) -> bool {
        let now = at.ctx.now_s;
        match self {
            Predicate::Eq(operand) => equals(value, operand, now),
            Predicate::Ne(operand) => !equals(value, operand, now),
            Predicate::In(list) => list.iter().any(|o| equals(value, o, now)),
            Predicate::Nin(list) => !list.iter().any(|o| equals(value, o, now)),
            Predicate::Compare(ord, or_equal, operand) => match order(value, operand, now) {
                Some(Ordering::Equal) => *or_equal,
                Some(found) => found == *ord,
                None => false,
            },
            Predicate::Like(needle) => value
                .text()
                .is_some_and(|s| s.to_lowercase().contains(needle.as_str())),
            Predicate::LikeIn(terms) => terms.iter().any(|(language, needle)| {
                let text = if at.field == "name" {
                    at.row.name_in(language)
                } else {
                    value.text()
                };
                text.is_some_and(|s| s.to_lowercase().contains(needle.as_str()))
            }),
            Predicate::SinceNow(inner) => match value {
                Scalar::Num(n) => inner.holds(&Scalar::Num(*n - Decimal::from(now)), at),
                _ => false,
            },
            Predicate::All(parts) => parts.iter().all(|p| p.holds(value, at)),
            Predicate::Any(parts) => parts.iter().any(|p| p.holds(value, at)),
        }
    }
}

/// An operand's value at `now` (only `@now` depends on it).
fn resolve(operand: &Operand, now: i64) -> std::borrow::Cow<'_, Operand> {
    match operand {
        Operand::Now(offset) => {
            std::borrow::Cow::Owned(Operand::Num(Decimal::from(now.saturating_add(*offset))))
        }
        other => std::borrow::Cow::Borrowed(other),
    }
}

fn equals(value: &Scalar<'_>, operand: &Operand, now: i64) -> bool {
    match (value, resolve(operand, now).as_ref()) {
        (Scalar::Num(a), Operand::Num(b)) => a == b,
        (Scalar::Str(a), Operand::Str(b)) => *a == b,
        (Scalar::Text(a), Operand::Str(b)) => a == b,
        (Scalar::Bool(a), Operand::Bool(b)) => a == b,
        (Scalar::Null, Operand::Null) => true,
        _ => false,
    }
}

/// The row's value against the operand; `None` when they do not compare
/// (an absent value never passes @gt and friends).
fn order(value: &Scalar<'_>, operand: &Operand, now: i64) -> Option<Ordering> {
    match (value, resolve(operand, now).as_ref()) {
        (Scalar::Num(a), Operand::Num(b)) => Some(a.cmp(b)),
        (Scalar::Str(a), Operand::Str(b)) => Some((*a).cmp(b.as_str())),
        (Scalar::Text(a), Operand::Str(b)) => Some(a.as_str().cmp(b.as_str())),
        _ => None,
    }
}
