//! What every area shares across the api processes of one store.
//!
//! Layout
//! - `clock`: time as a dependency.
//! - `ids`: ids handed out in blocks.
//! - `lease`: which process runs a background job's pass.
//! - `nodes`: which api processes are alive; clean-up after a dead one.
//! - `guards`: replay and duplicate-submission guards of the request layer.
//! - `limits`: rate limits shared through the store.
//! - `swarm_polls`: Swarm long-poll sessions shared through the store.

pub mod clock;
pub mod guards;
pub mod ids;
pub mod lease;
pub mod limits;
pub mod nodes;
pub mod swarm_polls;
