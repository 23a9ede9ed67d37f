//! Places through the real `rho` (issue 19): ssh hosts and serverctl servers (`ssh`), a server's
//! files (`server_files`), and
//! managed runs on a Slurm cluster the tests start (`slurm`), also behind an ssh login node
//! (`slurm_via`); ssh's control sockets with a long state folder (`control`).

mod control;
mod server_files;
mod slurm;
mod slurm_via;
mod ssh;
