//! rho-bench: shared helpers for Rho's benchmark drivers.
