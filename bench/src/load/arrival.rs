//! When an answer reached the generator's socket, as against when the generator read it.
//!
//! A generator that is busy, or whose CPU is taken by PostgreSQL or Redis, reads an answer
//! late, and that wait would be charged to the app. The kernel stamps every segment it
//! queues on a socket that asks for it (`SO_TIMESTAMPNS`, socket(7)), and hands the stamp
//! over with the data (`recvmsg(2)`, `SCM_TIMESTAMPNS`); the difference between that stamp
//! and the moment of the read is the generator's own lateness on the way back. TCP hands over
//! the stamp of the last segment a read takes, so when several segments wait the figure is
//! the youngest's wait: a lower bound of the generator's lateness, never an overstatement.

use std::io;
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;

/// The first read of an answer: when it happened, and how long its bytes had waited in the
/// socket by then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    pub read_at: Instant,
    pub waited: Duration,
}

impl Arrival {
    /// When the bytes reached the socket.
    pub fn arrived_at(&self) -> Instant {
        self.read_at - self.waited
    }
}

/// Shared by a connection's stream and whoever sends on it: armed before a request is sent,
/// it keeps the first read that brought bytes after that.
#[derive(Debug, Default)]
pub struct ArrivalClock {
    first: Mutex<Option<Option<Arrival>>>,
}

impl ArrivalClock {
    /// Forgets the last answer's arrival and waits for the next one.
    pub fn arm(&self) {
        *self.first.lock().expect("arrival clock") = Some(None);
    }

    /// The first read since [`ArrivalClock::arm`], if any brought bytes.
    pub fn take(&self) -> Option<Arrival> {
        self.first.lock().expect("arrival clock").take().flatten()
    }

    fn note(&self, arrival: Arrival) {
        let mut first = self.first.lock().expect("arrival clock");
        if let Some(slot @ None) = first.as_mut() {
            *slot = Some(arrival);
        }
    }
}

/// A TCP stream whose reads note, on its [`ArrivalClock`], how long their bytes waited.
pub struct ArrivalStream {
    stream: TcpStream,
    clock: Arc<ArrivalClock>,
}

impl ArrivalStream {
    /// Asks the kernel to stamp what arrives on `stream`.
    /// Segments are stamped only while stamping is on: see [`StampsOn`].
    pub fn new(stream: TcpStream) -> io::Result<(ArrivalStream, Arc<ArrivalClock>)> {
        set_timestamping(stream.as_raw_fd())?;
        let clock = Arc::new(ArrivalClock::default());
        Ok((
            ArrivalStream {
                stream,
                clock: Arc::clone(&clock),
            },
            clock,
        ))
    }
}

/// Keeps the kernel stamping what arrives, while it lives. The first socket that asks turns
/// stamping on for the whole machine, but not at once (net_enable_timestamp defers it to a
/// work queue), and TCP hands over no stamp for a segment queued before; so this waits until
/// a segment of its own arrives stamped, and holds that socket open so stamping stays on.
pub struct StampsOn {
    _pair: (std::net::TcpStream, std::net::TcpStream),
}

impl StampsOn {
    pub fn wait() -> io::Result<StampsOn> {
        use std::io::Write;
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        let mut writer = std::net::TcpStream::connect(listener.local_addr()?)?;
        let (reader, _) = listener.accept()?;
        set_timestamping(reader.as_raw_fd())?;
        for _ in 0..500 {
            writer.write_all(b".")?;
            let mut byte = [std::mem::MaybeUninit::uninit(); 1];
            let (_, stamp) = receive(reader.as_raw_fd(), &mut byte, 0)?;
            if stamp.is_some() {
                return Ok(StampsOn {
                    _pair: (reader, writer),
                });
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        Err(io::Error::other(
            "the kernel did not stamp arriving TCP segments within 1 s (SO_TIMESTAMPNS)",
        ))
    }
}

fn set_timestamping(fd: libc::c_int) -> io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: a valid socket and an int option value of the size given.
    let set = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            (&on as *const libc::c_int).cast(),
            size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    match set {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// One `recvmsg` into `buf`: the bytes read and the kernel's stamp of the last segment taken.
fn receive(
    fd: libc::c_int,
    buf: &mut [std::mem::MaybeUninit<u8>],
    flags: libc::c_int,
) -> io::Result<(usize, Option<SystemTime>)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // u64s, so the control buffer is aligned as cmsghdr needs.
    let mut control = [0u64; 8];
    // SAFETY: a zeroed msghdr is valid; the pointers set below outlive the call.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = size_of_val(&control);
    // SAFETY: `message` describes buffers owned by this frame.
    let read = unsafe { libc::recvmsg(fd, &mut message, flags) };
    if read < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut stamp = None;
    // SAFETY: the CMSG macros walk the control buffer the kernel filled, within its length.
    unsafe {
        let mut header = libc::CMSG_FIRSTHDR(&message);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET
                && (*header).cmsg_type == libc::SCM_TIMESTAMPNS
            {
                let time =
                    std::ptr::read_unaligned(libc::CMSG_DATA(header).cast::<libc::timespec>());
                stamp = Some(UNIX_EPOCH + Duration::new(time.tv_sec as u64, time.tv_nsec as u32));
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
    }
    Ok((read as usize, stamp))
}

impl AsyncRead for ArrivalStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let fd = this.stream.as_raw_fd();
        loop {
            ready!(this.stream.poll_read_ready(cx))?;
            // SAFETY: `receive` only writes into the unfilled part, and `assume_init` below
            // covers exactly the bytes it wrote.
            let unfilled = unsafe { buf.unfilled_mut() };
            match this.stream.try_io(Interest::READABLE, || {
                receive(fd, unfilled, libc::MSG_DONTWAIT)
            }) {
                Ok((read, stamp)) => {
                    let read_at = Instant::now();
                    let now = SystemTime::now();
                    // SAFETY: the kernel wrote `read` bytes.
                    unsafe { buf.assume_init(read) };
                    buf.advance(read);
                    if let (true, Some(stamp)) = (read > 0, stamp) {
                        let waited = now.duration_since(stamp).unwrap_or_default();
                        this.clock.note(Arrival { read_at, waited });
                    }
                    return Poll::Ready(Ok(()));
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => continue,
                Err(error) => return Poll::Ready(Err(error)),
            }
        }
    }
}

impl AsyncWrite for ArrivalStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// An answer written 20 ms before the client reads it has waited at least 20 ms, and
    /// one read as soon as it comes has hardly waited.
    #[tokio::test(flavor = "current_thread")]
    async fn a_read_notes_how_long_its_bytes_waited_in_the_socket() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut byte = [0u8; 1];
            for _ in 0..2 {
                socket.read_exact(&mut byte).await.unwrap();
                socket.write_all(b"answer").await.unwrap();
            }
        });
        let _stamps = StampsOn::wait().unwrap();
        let (mut stream, clock) =
            ArrivalStream::new(TcpStream::connect(addr).await.unwrap()).unwrap();
        let mut answer = [0u8; 6];

        clock.arm();
        stream.write_all(b"?").await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        stream.read_exact(&mut answer).await.unwrap();
        let late = clock.take().expect("the answer's arrival");
        assert!(late.waited >= Duration::from_millis(80), "{late:?}");
        assert!(late.waited < Duration::from_secs(2), "{late:?}");

        clock.arm();
        stream.write_all(b"?").await.unwrap();
        stream.read_exact(&mut answer).await.unwrap();
        let prompt = clock.take().expect("the answer's arrival");
        assert!(prompt.waited < Duration::from_millis(50), "{prompt:?}");
        assert_eq!(clock.take(), None, "taken once");
        server.await.unwrap();
    }
}
