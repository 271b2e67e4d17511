//! Booking ids on the wire: `book_bet` and `get_booking` over `/swarm`
//! (no login needed; docs/protocol.md "Booking ids").

use commands::sportsbook::bookings::{
    BookingError, BookingRefusal, BookingRequest, BookingService,
};
use serde::Deserialize;
use serde_json::{json, Value};

pub struct Bookings {
    pub service: BookingService,
}

/// `get_booking {booking_id}`; the id may be a string or a number.
#[derive(Deserialize)]
struct GetBookingParams {
    booking_id: Value,
}

/// A refusal as `book_bet` / `get_booking` answer it, the `do_bet` way.
fn refusal(refusal: &BookingRefusal) -> Value {
    let details = match refusal {
        BookingRefusal::TooMany { max } => json!({ "max": max }),
        BookingRefusal::Duplicate { event_id }
        | BookingRefusal::UnknownEvent { event_id }
        | BookingRefusal::WrongPrice { event_id } => json!({ "event_id": event_id }),
        BookingRefusal::Empty | BookingRefusal::NotFound => Value::Null,
    };
    json!({ "result": refusal.code().0, "result_text": refusal.to_string(), "details": details })
}

fn answer(result: Result<Value, BookingError>, what: &str) -> Value {
    match result {
        Ok(details) => json!({ "result": 0, "details": details }),
        Err(BookingError::Refused(r)) => refusal(&r),
        Err(BookingError::Internal(e)) => {
            tracing::error!(error = %e, "{what} failed");
            json!({"result": domain::Code::INTERNAL.0, "result_text": domain::Code::INTERNAL.message(), "details": null})
        }
    }
}

impl Bookings {
    /// `book_bet`: `{"result": 0, "details": {"number": "K7PX3QMA"}}`.
    pub async fn book_bet(&self, params: &Value) -> Result<Value, String> {
        let request: BookingRequest =
            serde_json::from_value(params.clone()).map_err(|e| format!("invalid params: {e}"))?;
        let saved = self.service.save(&request).await;
        Ok(answer(saved.map(|id| json!({ "number": id })), "booking"))
    }

    /// `get_booking`: the slip with current prices, or 1930.
    pub async fn get_booking(&self, params: &Value) -> Result<Value, String> {
        let params: GetBookingParams =
            serde_json::from_value(params.clone()).map_err(|e| format!("invalid params: {e}"))?;
        let id = match params.booking_id {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            _ => return Err("invalid params: booking_id must be a string".into()),
        };
        let loaded = self.service.load(&id).await.and_then(|slip| {
            serde_json::to_value(slip).map_err(|e| BookingError::Internal(e.to_string()))
        });
        Ok(answer(loaded, "loading a booking"))
    }
}
