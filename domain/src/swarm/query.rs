//! The `get` command's query: `what` names the levels (and fields) to
//! answer, `where` filters rows on any level. Parsing checks every name,
//! operator and operand against the level's fields, so a malformed query
//! is a typed `QueryError` (protocol code 3), never a panic and never a
//! silently empty answer.
//!
//! `what`: `{"<level>": [fields]}`; an empty list means every field, and
//! `"@count"` (or `["@count"]`) asks for the number of matching rows
//! instead of the rows. A count must be the deepest level asked.
//!
//! `where`: `{"<level>": {<condition>...}}`; the conditions of a level
//! all hold (and). A condition is `"<field>": <operand>` or one of
//! `"@or": [{<conditions>}, ...]`, `"@and": [{<conditions>}, ...]`,
//! `"@node_limit": n`. An operand is a plain value (equality) or an object
//! of operators, all of which hold: `@in` / `@nin` (list), `@gt`, `@gte`,
//! `@lt`, `@lte` (number, or string for text fields), `@like` (string:
//! case-insensitive substring, text fields only), and `@or` / `@and` (list
//! of operands) to combine operators on one field. `null` is equality with
//! an absent optional field. Numbers and decimals take JSON numbers or
//! numeric strings; flags take true/false or 1/0; `game.info` cannot be
//! filtered.

use std::cmp::Ordering;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::{Map, Value};

use super::schema::{self, Kind, Scalar};
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
    #[error("what.{0} must be a list of field names or \"@count\"")]
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

/// A parsed `get` query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    levels: [LevelQuery; 6],
}

#[derive(Debug, Clone, Default, PartialEq)]
struct LevelQuery {
    selection: Option<Selection>,
    conditions: Vec<Condition>,
    node_limit: Option<usize>,
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
    In(Vec<Operand>),
    Nin(Vec<Operand>),
    Compare(Ordering, bool, Operand),
    Like(String),
    All(Vec<Predicate>),
    Any(Vec<Predicate>),
}

#[derive(Debug, Clone, PartialEq)]
enum Operand {
    Num(Decimal),
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

    pub(crate) fn matches(&self, level: Level, row: schema::Row<'_>) -> bool {
        self.levels[level.depth()]
            .conditions
            .iter()
            .all(|c| c.holds(row))
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
        let object = conditions
            .as_object()
            .ok_or(QueryError::NotAnObject("where.<level>"))?;
        let slot = &mut self.levels[level.depth()];
        for (key, value) in object {
            if key == "@node_limit" {
                slot.node_limit = Some(parse_node_limit(level, value)?);
            } else {
                slot.conditions.push(parse_condition(level, key, value)?);
            }
        }
        Ok(())
    }
}

fn parse_level(name: &str) -> Result<Level, QueryError> {
    Level::from_str(name).map_err(|_| QueryError::UnknownLevel(name.to_string()))
}

fn parse_selection(level: Level, value: &Value) -> Result<Selection, QueryError> {
    let list = match value {
        Value::String(s) if s == "@count" => return Ok(Selection::Count),
        Value::Array(list) => list,
        _ => return Err(QueryError::BadSelection(level)),
    };
    if list.is_empty() {
        return Ok(Selection::All);
    }
    if list.len() == 1 && list[0] == "@count" {
        return Ok(Selection::Count);
    }
    let mut names = Vec::new();
    for item in list {
        let name = item.as_str().ok_or(QueryError::BadSelection(level))?;
        let (name, _) = schema::field(level, name).ok_or_else(|| unknown_field(level, name))?;
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(Selection::Fields(names))
}

fn unknown_field(level: Level, field: &str) -> QueryError {
    QueryError::UnknownField {
        level,
        field: field.to_string(),
    }
}

fn parse_node_limit(level: Level, value: &Value) -> Result<usize, QueryError> {
    value
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or(QueryError::BadNodeLimit(level))
}

/// One `key: value` of a level's conditions.
fn parse_condition(level: Level, key: &str, value: &Value) -> Result<Condition, QueryError> {
    match key {
        "@or" => Ok(Condition::Or(parse_groups(level, key, value)?)),
        "@and" => Ok(Condition::And(parse_groups(level, key, value)?)),
        op if op.starts_with('@') => Err(operator_error(op)),
        field => {
            let (name, kind) =
                schema::field(level, field).ok_or_else(|| unknown_field(level, field))?;
            if kind == Kind::Object {
                return Err(QueryError::NotFilterable {
                    level,
                    field: field.to_string(),
                });
            }
            let ctx = FieldCtx { level, name, kind };
            Ok(Condition::Field(name, ctx.predicate(value)?))
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
                .map(|(k, v)| match k.as_str() {
                    "@node_limit" => Err(QueryError::MisplacedOperator(k.clone())),
                    _ => parse_condition(level, k, v),
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

const FIELD_OPERATORS: [&str; 9] = [
    "@in", "@nin", "@gt", "@gte", "@lt", "@lte", "@like", "@or", "@and",
];

fn operator_error(op: &str) -> QueryError {
    let known = FIELD_OPERATORS.contains(&op) || op == "@node_limit" || op == "@count";
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
        match (self.kind, value) {
            (Kind::Str, Value::String(s)) => Ok(Predicate::Like(s.to_lowercase())),
            _ => Err(self.wrong("@like", "a string, on a text field")),
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

    fn holds(&self, row: schema::Row<'_>) -> bool {
        match self {
            Condition::Field(name, predicate) => predicate.holds(&row.scalar(name)),
            Condition::Or(groups) => groups.iter().any(|g| g.iter().all(|c| c.holds(row))),
            Condition::And(groups) => groups.iter().all(|g| g.iter().all(|c| c.holds(row))),
        }
    }
}

impl Predicate {
    fn terms(&self) -> usize {
        match self {
            Predicate::In(list) | Predicate::Nin(list) => 1 + list.len(),
            Predicate::All(parts) | Predicate::Any(parts) => {
                1 + parts.iter().map(Predicate::terms).sum::<usize>()
            }
            _ => 1,
        }
    }

    fn holds(&self, value: &Scalar<'_>) -> bool {
        match self {
            Predicate::Eq(operand) => equals(value, operand),
            Predicate::In(list) => list.iter().any(|o| equals(value, o)),
            Predicate::Nin(list) => !list.iter().any(|o| equals(value, o)),
            Predicate::Compare(ord, or_equal, operand) => match order(value, operand) {
                Some(Ordering::Equal) => *or_equal,
                Some(found) => found == *ord,
                None => false,
            },
            Predicate::Like(needle) => match value {
                Scalar::Str(s) => s.to_lowercase().contains(needle.as_str()),
                _ => false,
            },
            Predicate::All(parts) => parts.iter().all(|p| p.holds(value)),
            Predicate::Any(parts) => parts.iter().any(|p| p.holds(value)),
        }
    }
}

fn equals(value: &Scalar<'_>, operand: &Operand) -> bool {
    match (value, operand) {
        (Scalar::Num(a), Operand::Num(b)) => a == b,
        (Scalar::Str(a), Operand::Str(b)) => *a == b,
        (Scalar::Bool(a), Operand::Bool(b)) => a == b,
        (Scalar::Null, Operand::Null) => true,
        _ => false,
    }
}

/// The row's value against the operand; `None` when they do not compare
/// (an absent value never passes @gt and friends).
fn order(value: &Scalar<'_>, operand: &Operand) -> Option<Ordering> {
    match (value, operand) {
        (Scalar::Num(a), Operand::Num(b)) => Some(a.cmp(b)),
        (Scalar::Str(a), Operand::Str(b)) => Some((*a).cmp(b.as_str())),
        _ => None,
    }
}
