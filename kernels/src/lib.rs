//! rho-kernels: processes Rho supervises. Today the Core Host that runs managed `r.execute`
//! scripts once per `operationId`, its wire protocol, its client and the Core CLI.

pub mod host;
