//! Port memory: reuse this state's last port; take a new one only when another program holds it.

use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};

/// How the listening port was chosen.
pub(crate) struct Bound {
    pub(crate) listener: TcpListener,
    pub(crate) port: u16,
    /// The remembered port was busy and a new one was taken.
    pub(crate) moved_from: Option<u16>,
}

fn bind(port: u16) -> std::io::Result<TcpListener> {
    TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port))
}

/// Binds 127.0.0.1: an explicit port (0 = always new) or else the last port, or a new one if it is taken.
pub(crate) fn choose(explicit: Option<u16>, last: Option<u16>) -> Result<Bound, String> {
    let bound = |l: TcpListener, moved_from| {
        let port = l.local_addr().map_err(|e| e.to_string())?.port();
        Ok(Bound {
            listener: l,
            port,
            moved_from,
        })
    };
    match explicit {
        Some(0) => bound(
            bind(0).map_err(|e| format!("cannot listen on 127.0.0.1: {e}"))?,
            None,
        ),
        Some(p) => match bind(p) {
            Ok(l) => bound(l, None),
            Err(e) => Err(format!(
                "port {p} is in use ({e}); choose another with --port, or --port 0 for any"
            )),
        },
        None => match last.map(bind) {
            Some(Ok(l)) => bound(l, None),
            Some(Err(_)) => bound(
                bind(0).map_err(|e| format!("cannot listen on 127.0.0.1: {e}"))?,
                last,
            ),
            None => bound(
                bind(0).map_err(|e| format!("cannot listen on 127.0.0.1: {e}"))?,
                None,
            ),
        },
    }
}
