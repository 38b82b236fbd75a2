//! Headless Chromium screenshots of the HTML reports, for the tests that check their charts
//! are drawn.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Opens `html` in headless Chromium with `args` added, its standard output to `stdout`, and
/// waits (at most 120 s) for it to end successfully.
pub fn headless_chromium(args: &[String], html: &Path, stdout: Stdio) {
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|path| Path::new(path).exists())
        .expect("no chromium: apt-get install chromium (Debian's package) to run this test");
    let profile = tempfile::tempdir().unwrap();
    let mut browser = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .args(args)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", html.display()))
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = browser.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = browser.kill();
            panic!("chromium took more than 120 s with {}", html.display());
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(status.success(), "chromium: {status}");
}

/// Opens `html` in headless Chromium at 1280 × `height`, saves the screenshot as `png`, and
/// returns how many pixels of each strongly coloured RGB value it has (the pages are greys;
/// only drawn charts are coloured).
pub fn coloured_pixels(html: &Path, png: &Path, height: u32) -> BTreeMap<[u8; 3], usize> {
    headless_chromium(
        &[
            format!("--window-size=1280,{height}"),
            format!("--screenshot={}", png.display()),
        ],
        html,
        Stdio::null(),
    );

    let file = std::io::BufReader::new(std::fs::File::open(png).expect("the screenshot"));
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    assert_eq!((info.width, info.height), (1280, height));
    let mut colours: BTreeMap<[u8; 3], usize> = BTreeMap::new();
    for pixel in pixels[..info.buffer_size()].chunks_exact(channels) {
        let [r, g, b] = [pixel[0], pixel[1], pixel[2]];
        if r.max(g).max(b) - r.min(g).min(b) >= 60 {
            *colours.entry([r, g, b]).or_default() += 1;
        }
    }
    colours
}
