//! The `rho` binary: composition root and command line.
fn main() {}
