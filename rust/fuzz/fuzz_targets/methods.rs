//! Every method on one thread and two against the naive reference, on
//! objects decoded from the fuzzer's bytes (`testing::methods_agree`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = broadphase_core::testing::methods_agree(data) {
        panic!("{e}");
    }
});
