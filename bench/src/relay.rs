//! A loopback TCP relay between an app and a service (Postgres, Redis). Cutting it drops
//! every connection through it and refuses new ones, as a service outage does; resuming it
//! listens on the same port again. The fault tests put it in front of the real services.

use anyhow::{Context, Result};
use std::io::ErrorKind;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pub struct Relay {
    pub addr: SocketAddr,
    upstream: String,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct Shared {
    stopping: AtomicBool,
    streams: Mutex<Vec<TcpStream>>,
}

impl Relay {
    /// Listens on a free loopback port and forwards every connection to `upstream`
    /// (`host:port`).
    pub fn start(upstream: &str) -> Result<Relay> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let mut relay = Relay {
            addr: listener.local_addr()?,
            upstream: upstream.to_owned(),
            shared: Arc::default(),
            acceptor: None,
        };
        relay.spawn_acceptor(listener)?;
        Ok(relay)
    }

    /// Drops every relayed connection and stops listening.
    pub fn cut(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        for stream in self.shared.streams.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    /// Listens again on the same port.
    pub fn resume(&mut self) -> Result<()> {
        self.shared.stopping.store(false, Ordering::SeqCst);
        let listener =
            TcpListener::bind(self.addr).with_context(|| format!("rebind {}", self.addr))?;
        self.spawn_acceptor(listener)
    }

    fn spawn_acceptor(&mut self, listener: TcpListener) -> Result<()> {
        listener.set_nonblocking(true)?;
        let shared = Arc::clone(&self.shared);
        let upstream = self.upstream.clone();
        self.acceptor = Some(std::thread::spawn(move || {
            while !shared.stopping.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((client, _)) => {
                        if let Err(err) = relay_connection(client, &upstream, &shared) {
                            eprintln!("relay: {err:#}");
                        }
                    }
                    Err(err) if err.kind() == ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(err) => eprintln!("relay: accept: {err}"),
                }
            }
        }));
        Ok(())
    }
}

fn relay_connection(client: TcpStream, upstream: &str, shared: &Shared) -> Result<()> {
    client.set_nonblocking(false)?;
    let server = TcpStream::connect(upstream).with_context(|| format!("connect {upstream}"))?;
    for stream in [&client, &server] {
        stream.set_nodelay(true)?;
        shared.streams.lock().unwrap().push(stream.try_clone()?);
    }
    for (mut from, mut to) in [(client.try_clone()?, server.try_clone()?), (server, client)] {
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut from, &mut to);
            let _ = to.shutdown(Shutdown::Both);
        });
    }
    Ok(())
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.cut();
    }
}
