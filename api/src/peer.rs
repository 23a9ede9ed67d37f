//! The OS user on the other end of a loopback TCP connection, read from `/proc/net/tcp` and `/proc/net/tcp6`.
//!
//! The client's socket is the table row whose local address is the client's address:port and
//! whose remote address is ours. Addresses are printed by the kernel as the raw in-memory words
//! of the network-order address (`%08X` per 32-bit word, so byte order is the machine's), ports
//! as plain hex.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Facts about one accepted connection, stored in its connection data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerInfo {
    pub peer: Option<SocketAddr>,
    /// The peer socket's owner; `None` when it could not be determined (never "local" then).
    pub uid: Option<u32>,
}

/// One `/proc/net/tcp{,6}` row: a socket's local and remote address and its owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpRow {
    pub local: SocketAddr,
    pub remote: SocketAddr,
    pub uid: u32,
}

fn word(hex: &str) -> Option<[u8; 4]> {
    if hex.len() != 8 {
        return None;
    }
    u32::from_str_radix(hex, 16).ok().map(u32::to_ne_bytes)
}

/// Parses `0100007F:1F90` (IPv4) or a 32-hex-digit IPv6 address with its port.
pub fn parse_addr(text: &str) -> Option<SocketAddr> {
    let (ip, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let ip = match ip.len() {
        8 => IpAddr::V4(Ipv4Addr::from(word(ip)?)),
        32 => {
            let mut bytes = [0u8; 16];
            for i in 0..4 {
                bytes[i * 4..i * 4 + 4].copy_from_slice(&word(ip.get(i * 8..i * 8 + 8)?)?);
            }
            IpAddr::V6(Ipv6Addr::from(bytes))
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// Parses one data row (the header row and malformed rows give `None`).
pub fn parse_row(line: &str) -> Option<TcpRow> {
    let mut cols = line.split_whitespace();
    let _slot = cols.next()?.strip_suffix(':')?;
    let local = parse_addr(cols.next()?)?;
    let remote = parse_addr(cols.next()?)?;
    // st, tx:rx, tr:when, retrnsmt, then uid.
    let uid = cols.nth(4)?.parse().ok()?;
    Some(TcpRow { local, remote, uid })
}

/// An address with IPv4-mapped IPv6 folded to IPv4, so both tables compare alike.
fn canonical(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => SocketAddr::new(IpAddr::V4(v4), addr.port()),
            None => addr,
        },
        IpAddr::V4(_) => addr,
    }
}

/// The owner of the socket `client` connected to `server`, found in the text of a table.
pub fn find_uid(table: &str, client: SocketAddr, server: SocketAddr) -> Option<u32> {
    let (client, server) = (canonical(client), canonical(server));
    table
        .lines()
        .filter_map(parse_row)
        .find(|r| canonical(r.local) == client && canonical(r.remote) == server)
        .map(|r| r.uid)
}

/// Looks the peer's uid up in the live tables (Linux only; elsewhere `None`).
pub fn peer_uid(client: SocketAddr, server: SocketAddr) -> Option<u32> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().find_map(|path| {
        let table = std::fs::read_to_string(path).ok()?;
        find_uid(&table, client, server)
    })
}

/// The `HttpServer::on_connect` callback: TCP_NODELAY, and the peer's uid looked up once.
pub fn on_connect(conn: &dyn std::any::Any, data: &mut actix_web::dev::Extensions) {
    let Some(stream) = conn.downcast_ref::<actix_web::rt::net::TcpStream>() else {
        data.insert(PeerInfo {
            peer: None,
            uid: None,
        });
        return;
    };
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "TCP_NODELAY not set");
    }
    let (peer, local) = (stream.peer_addr().ok(), stream.local_addr().ok());
    let uid = match (peer, local) {
        (Some(p), Some(l)) => peer_uid(p, l),
        _ => None,
    };
    tracing::debug!(?peer, ?uid, "connection accepted");
    data.insert(PeerInfo { peer, uid });
}

#[cfg(test)]
mod tests {
    use super::*;

    // A little-endian machine's table: the service listens on 127.0.0.1:8080 (uid 1000), a
    // client of uid 1001 connected from port 45678 (0xB26E), and one of uid 1000 over IPv6.
    const TCP: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1111 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:B26E 01 00000000:00000000 00:00000000 00000000  1000        0 2222 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:B26E 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 3333 1 0000000000000000 20 4 30 10 -1
   3: garbage
";
    const TCP6: &str = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0000000000000000FFFF00000100007F:C350 0000000000000000FFFF00000100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 4444 1 0000000000000000 20 4 0 10 -1
   1: 00000000000000000000000001000000:D431 00000000000000000000000001000000:1F91 01 00000000:00000000 00:00000000 00000000   42        0 5555 1 0000000000000000 20 4 0 10 -1
";

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn parses_ipv4_and_ipv6_addresses() {
        if cfg!(target_endian = "little") {
            assert_eq!(parse_addr("0100007F:1F90"), Some(addr("127.0.0.1:8080")));
            assert_eq!(
                parse_addr("00000000000000000000000001000000:1F91"),
                Some(addr("[::1]:8081"))
            );
        }
        assert_eq!(parse_addr("0100007F"), None);
        assert_eq!(parse_addr("0100007:1F90"), None);
        assert_eq!(parse_addr("0100007G:1F90"), None);
        assert_eq!(parse_row("  sl  local_address rem_address"), None);
    }

    #[test]
    fn finds_the_client_socket_not_ours() {
        if !cfg!(target_endian = "little") {
            return;
        }
        let server = addr("127.0.0.1:8080");
        assert_eq!(find_uid(TCP, addr("127.0.0.1:45678"), server), Some(1001));
        assert_eq!(find_uid(TCP, addr("127.0.0.1:45679"), server), None);
        // A dual-stack client socket shows its address as ::ffff:127.0.0.1 in tcp6.
        assert_eq!(find_uid(TCP6, addr("127.0.0.1:50000"), server), Some(0));
        assert_eq!(
            find_uid(TCP6, addr("[::1]:54321"), addr("[::1]:8081")),
            Some(42)
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_live_loopback_connection_is_ours() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (_accepted, peer) = listener.accept().unwrap();
        use std::os::unix::fs::MetadataExt;
        let me = std::fs::metadata("/proc/self").unwrap().uid();
        assert_eq!(peer, client.local_addr().unwrap());
        assert_eq!(peer_uid(peer, listener.local_addr().unwrap()), Some(me));
    }
}
