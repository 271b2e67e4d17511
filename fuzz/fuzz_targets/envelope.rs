//! Fuzzes the request layer's envelope decoder: any bytes a client sends as
//! a POST body must give an envelope or one of the transport refusals,
//! never a panic. Run with `cargo +nightly fuzz run envelope` in `fuzz/`.

#![no_main]

use api::transport::crypto::Pairs;
use api::transport::Transport;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| {
    let pairs: Vec<(String, String)> = (0..10)
        .map(|i| (format!("fuzzkey{i:09}"), format!("fuzziv0{i:09}")))
        .collect();
    let transport = Transport::new(Pairs::new(&pairs).expect("16-byte pairs"), b"secret".to_vec());
    if let Ok((index, plain)) = transport.open_envelope(body) {
        // Whatever opened must seal again with the same pair.
        assert!((0..10).contains(&index));
        assert!(transport.seal_envelope(index, plain.as_bytes()).is_ok());
    }
});
