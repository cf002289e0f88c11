//! The HTML report driven in real headless Chromium through WebDriver (Debian's
//! `chromium-driver`, installed by `scripts/readers.sh`): real pointer clicks on a slice,
//! a message and a critical-path segment, a zoom with the mouse wheel, text typed into the
//! search box; every detail the page shows is checked against the run record or
//! `cpperf --format json`. Skipped, and says so, when the driver is not installed.
use crate::harness::*;
use crate::truth::{busy_in, reader, records};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

/// A WebDriver session of a chromedriver started for it; ended (and the driver killed)
/// when dropped. It holds the turn of the test binary's one Chromium while it lives.
struct Driver {
    child: std::process::Child,
    port: u16,
    session: String,
    _profile: TempDir,
    /// The turn of the one live session; given back after the driver is killed.
    _turn: Option<std::sync::MutexGuard<'static, ()>>,
}

impl Driver {
    /// A session of a fresh chromedriver and Chromium; `None` (the test skipped, and it
    /// says so) when either is not installed. A Chromium that fails to start is tried
    /// again, twice, each time with a new driver and profile; the test fails with every
    /// attempt's error if none starts.
    fn start(tag: &str) -> Option<Driver> {
        let exe = reader("chromedriver", "the HTML report driven through WebDriver")?;
        let chromium = reader("chromium", "the HTML report driven through WebDriver")?;
        let turn = crate::truth::CHROMIUM_TURN.lock().unwrap_or_else(|e| e.into_inner());
        let mut errors = Vec::new();
        for attempt in 1..=3 {
            match Driver::try_start(&exe, &chromium, &format!("{tag}-{attempt}")) {
                Ok(mut d) => {
                    d._turn = Some(turn);
                    return Some(d);
                }
                Err(e) => errors.push(format!("attempt {attempt}: {e}")),
            }
        }
        panic!("no WebDriver session after 3 attempts:\n{}", errors.join("\n"));
    }

    /// One attempt: a driver on a free port, then a session of Chromium; why not, with
    /// the driver killed (by the drop), if either fails.
    fn try_start(exe: &Path, chromium: &Path, tag: &str) -> Result<Driver, String> {
        // A free port: bound by the system, then released for the driver.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = std::process::Command::new(exe)
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("chromedriver: {e}"))?;
        let profile = tempdir(&format!("webdriver-{tag}"));
        let mut d = Driver { child, port, session: String::new(), _profile: profile, _turn: None };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while d.http("GET", "/status", None).map(|v| v["value"]["ready"] != json!(true)).unwrap_or(true) {
            if std::time::Instant::now() >= deadline {
                return Err("chromedriver did not start in 30 s".into());
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let args = json!([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--window-size=1280,1800",
            format!("--user-data-dir={}", d._profile.display()),
        ]);
        let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"binary": chromium, "args": args}}}});
        let v = d.http("POST", "/session", Some(caps)).map_err(|e| format!("new session: {e}"))?;
        d.session = v["value"]["sessionId"].as_str().ok_or_else(|| format!("no session: {v}"))?.to_string();
        Ok(d)
    }

    /// One HTTP/1.1 request to the driver; the JSON answer, or why there is none.
    fn http(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| format!("connect: {e}"))?;
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .map_err(|e| format!("write: {e}"))?;
        // The driver keeps the connection open: read the head, then Content-Length bytes
        // (or chunks up to the last one). Counted and cut in bytes, decoded once whole: a
        // read may end inside a character of the answer.
        s.set_read_timeout(Some(std::time::Duration::from_secs(120))).map_err(|e| e.to_string())?;
        let mut raw = Vec::new();
        let mut buf = [0u8; 65536];
        let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
        let body: Vec<u8> = loop {
            let n = match s.read(&mut buf) {
                Ok(0) => return Err(format!("closed after {} bytes", raw.len())),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(format!("read after {} bytes: {e}", raw.len())),
            };
            raw.extend_from_slice(&buf[..n]);
            let Some(h) = find(&raw, b"\r\n\r\n") else { continue };
            let head = String::from_utf8_lossy(&raw[..h]).to_ascii_lowercase();
            let rest = &raw[h + 4..];
            if let Some(len) = head.lines().find_map(|l| l.strip_prefix("content-length:")) {
                let len: usize = len.trim().parse().map_err(|_| format!("length {len}"))?;
                if rest.len() >= len {
                    break rest[..len].to_vec();
                }
            } else if head.contains("transfer-encoding: chunked") {
                // Chunks: a hexadecimal size line, the bytes, CRLF; a size 0 ends them.
                let mut out = Vec::new();
                let mut r = rest;
                let done = loop {
                    let Some(e) = find(r, b"\r\n") else { break false };
                    let size = String::from_utf8_lossy(&r[..e]).trim().to_string();
                    let n = usize::from_str_radix(&size, 16).map_err(|_| format!("chunk size {size:?}"))?;
                    if n == 0 {
                        break true;
                    }
                    let Some(chunk) = r.get(e + 2..e + 2 + n) else { break false };
                    out.extend_from_slice(chunk);
                    let Some(tail) = r.get(e + 2 + n + 2..) else { break false };
                    r = tail;
                };
                if done {
                    break out;
                }
            } else {
                return Err(format!("no length in {head:?}"));
            }
        };
        let body = String::from_utf8(body).map_err(|e| e.to_string())?;
        serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))
    }

    /// A command of the session; its `value`. A WebDriver error fails the test.
    fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        let body = if method == "GET" || method == "DELETE" { None } else { Some(body) };
        let v = self
            .http(method, &format!("/session/{}{path}", self.session), body)
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: no answer: {e}"));
        if let Some(e) = v["value"]["error"].as_str() {
            panic!("WebDriver {path}: {e}: {}", v["value"]["message"]);
        }
        v["value"].clone()
    }

    fn script(&self, code: &str) -> Value {
        self.cmd("POST", "/execute/sync", json!({"script": code, "args": []}))
    }

    fn open(&self, page: &Path) {
        self.cmd("POST", "/url", json!({"url": format!("file://{}", page.display())}));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while self.script("return document.body.getAttribute('data-ready')") != json!("1") {
            assert!(std::time::Instant::now() < deadline, "the report did not finish drawing");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// The viewport position of canvas pixel (x, y) of the timeline.
    fn viewport(&self, x: f64, y: f64) -> (i64, i64) {
        let r = self
            .script("const r = document.getElementById('timeline').getBoundingClientRect(); return [r.left, r.top];");
        ((r[0].as_f64().unwrap() + x).round() as i64, (r[1].as_f64().unwrap() + y).round() as i64)
    }

    /// Where processor p's row is at time t (ticks), in viewport pixels.
    fn at(&self, p: u32, t: f64) -> (i64, i64) {
        let v = self.script(&format!("return window.cppeReport.at({p}, {t});"));
        self.viewport(v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
    }

    /// A real click of the mouse at viewport (x, y).
    fn click(&self, (x, y): (i64, i64)) {
        let actions = json!({"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
            {"type": "pointerMove", "duration": 0, "origin": "viewport", "x": x, "y": y},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerUp", "button": 0}
        ]}]});
        self.cmd("POST", "/actions", actions);
        self.cmd("DELETE", "/actions", Value::Null);
    }

    /// Turns the mouse wheel `notches` times towards the user (zooming in) at (x, y).
    fn wheel(&self, (x, y): (i64, i64), notches: usize) {
        let scrolls: Vec<Value> = (0..notches)
            .map(|_| json!({"type": "scroll", "x": x, "y": y, "deltaX": 0, "deltaY": -100, "origin": "viewport"}))
            .collect();
        self.cmd("POST", "/actions", json!({"actions": [{"type": "wheel", "id": "wheel", "actions": scrolls}]}));
    }

    /// Presses and releases `key` in the timeline (focused first).
    fn key(&self, key: &str) {
        self.script("document.getElementById('timeline').focus();");
        let keys = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key},
            {"type": "keyUp", "value": key}
        ]}]});
        self.cmd("POST", "/actions", keys);
    }

    /// What the details panel shows: its kind and fields.
    fn details(&self) -> (String, Value) {
        let v = self.script("const d = document.getElementById('details'); return [d.getAttribute('data-kind'), d.getAttribute('data-json')];");
        (v[0].as_str().unwrap_or("").to_string(), serde_json::from_str(v[1].as_str().unwrap_or("null")).unwrap())
    }

    /// The source line marked in the source view.
    fn marked_line(&self) -> Value {
        self.script("const r = document.querySelector('#source tr.hl'); return r ? Number(r.id.slice(1)) : null;")
    }

    fn search(&self, text: &str) -> (String, Value) {
        let e = self.cmd("POST", "/element", json!({"using": "css selector", "value": "#search"}));
        let id = e.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).unwrap().to_string();
        self.cmd("POST", &format!("/element/{id}/clear"), json!({}));
        self.cmd("POST", &format!("/element/{id}/value"), json!({"text": format!("{text}\u{E007}")}));
        self.details()
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.http("DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A busy interval `(pproc, pid, start, end, line)`.
type Busy = (u32, u32, u64, u64, u32);
/// A message that arrived: `(send, src pproc, dst pproc, arrival, bytes, send line, 0)`.
type Sent = (u64, u32, u32, u64, u32, u32, u32);

/// The record's busy intervals and the messages that arrived.
fn busy_intervals(cpt: &Path) -> (Vec<Busy>, Vec<Sent>) {
    let bytes = std::fs::read(cpt).unwrap();
    let (mut r, _) = cppe::trace::RunRecordReader::open(&bytes[..]).unwrap();
    let (mut busy, mut sends) = (Vec::new(), Vec::new());
    let mut arrivals = std::collections::HashMap::new();
    while let Some(e) = r.next_event().unwrap() {
        match e {
            cppe::trace::Event::Busy { pproc, pid, start, end, line, .. } if end > start => {
                busy.push((pproc, pid, start, end, line))
            }
            cppe::trace::Event::MsgSend { time, msg, src_pproc, dst_pproc, bytes, line, .. } => {
                sends.push((time, src_pproc, dst_pproc, msg, bytes, line, 0u32))
            }
            cppe::trace::Event::MsgArrive { time, msg, .. } => {
                arrivals.insert(msg, time);
            }
            _ => {}
        }
    }
    // (send, src, dst, arrival, bytes, line, 0)
    let sends = sends
        .into_iter()
        .filter_map(|(t, s, d, m, b, l, z)| arrivals.get(&m).map(|&a| (t, s, d, a, b, l, z)))
        .collect();
    (busy, sends)
}

#[test]
fn the_report_answers_clicks_zoom_and_search_in_chromium() {
    let Some(d) = Driver::start("matmul") else { return };
    let (_, cpt) = records().iter().find(|(n, _)| n == "matmul").expect("matmul ran");
    let dir = tempdir("browser-matmul");
    let page = dir.join("matmul.html");
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--html", page.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let j: Value =
        serde_json::from_slice(&run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "json"], b"").stdout)
            .unwrap();
    let functions: std::collections::BTreeMap<u64, String> = j["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["pid"].as_u64().unwrap(), p["function"].as_str().unwrap().to_string()))
        .collect();
    let tpu = 1000.0; // ticks per time unit in a run record
    d.open(&page);
    let (busy, messages) = busy_intervals(cpt);

    // A critical-path segment: the longest computation of the critical path, clicked in
    // its middle: its WCPA weight and P are the JSON report's.
    let segs = j["critical_path"]["segments"].as_array().unwrap();
    let seg = segs
        .iter()
        .filter(|g| g["kind"] == "compute")
        .max_by(|a, b| {
            let len = |g: &Value| g["to"].as_f64().unwrap() - g["from"].as_f64().unwrap();
            len(a).total_cmp(&len(b))
        })
        .unwrap();
    let pproc =
        j["processes"].as_array().unwrap().iter().find(|p| p["pid"] == seg["pid"]).unwrap()["pproc"].as_u64().unwrap();
    let mid = (seg["from"].as_f64().unwrap() + seg["to"].as_f64().unwrap()) / 2.0 * tpu;
    d.click(d.at(pproc as u32, mid));
    let (kind, f) = d.details();
    assert_eq!(kind, "critical", "{f}");
    assert_eq!(f["pid"], seg["pid"]);
    let rel =
        |a: &Value, b: &Value| (a.as_f64().unwrap() - b.as_f64().unwrap()).abs() / b.as_f64().unwrap().abs().max(1e-9);
    assert!(rel(&f["weight"], &seg["weight"]) < 1e-5, "weight {} vs {}", f["weight"], seg["weight"]);
    assert!((f["parallelism"].as_f64().unwrap() - seg["parallelism"].as_f64().unwrap()).abs() < 1e-6);

    // Zoom: ten wheel notches (×0.8 each) at the middle of processor 9's row; the window
    // is then about a tenth of the run, and each row's busy share drawn over it is the
    // record's busy time in the window over its length (within 1 %).
    let end = d.script("return window.cppeReport.end;").as_f64().unwrap();
    d.wheel(d.at(9, end / 2.0), 10);
    let w = d.script("return window.cppeReport.window();");
    let (t0, t1) = (w[0].as_f64().unwrap(), w[1].as_f64().unwrap());
    assert!((t1 - t0) < end * 0.2, "zoomed to {t0}..{t1} of {end}");
    let record = busy_in(cpt, 64, t0.ceil() as u64, t1.floor() as u64);
    for p in [0usize, 9, 33, 63] {
        let drawn = d.script(&format!("return window.cppeReport.drawnBusy({p});")).as_f64().unwrap();
        let want = record[p] as f64 / (t1.floor() - t0.ceil());
        assert!((drawn - want).abs() <= 0.01, "P{p} zoomed: drawn {drawn:.4}, record {want:.4}");
    }

    // A message in the window, clicked at the middle of its line: the panel shows its
    // processors, bytes, send and arrival times and latency, and marks its send's line.
    let candidates: Vec<_> = messages
        .iter()
        .filter(|m| m.1 != m.2 && m.1 >= 2 && m.2 >= 2 && m.0 as f64 > t0 && (m.3 as f64) < t1)
        .collect();
    assert!(!candidates.is_empty(), "no message in the window");
    let mut shown = None;
    for m in candidates.iter().take(40) {
        let (a, b) = (d.at(m.1, m.0 as f64), d.at(m.2, m.3 as f64));
        d.click(((a.0 + b.0) / 2, (a.1 + b.1) / 2));
        let (kind, f) = d.details();
        if kind == "message" && f["send"].as_f64() == Some(m.0 as f64 / tpu) && f["src"] == json!(m.1) {
            shown = Some((m, f));
            break;
        }
    }
    let (m, f) = shown.expect("a click on a message line shows that message");
    assert_eq!(f["dst"], json!(m.2));
    assert_eq!(f["bytes"], json!(m.4));
    assert_eq!(f["arrival"].as_f64(), Some(m.3 as f64 / tpu));
    assert_eq!(f["latency"].as_f64(), Some((m.3 - m.0) as f64 / tpu));
    assert_eq!(f["line"], json!(m.5));
    assert_eq!(d.marked_line(), json!(m.5), "the send's line is marked in the source view");

    // The search box: a function marks every processor that ran it, a processor is
    // selected, a line shows where it ran.
    let multiply = functions.values().filter(|f| *f == "multiply").count();
    let (kind, f) = d.search("multiply");
    assert_eq!(kind, "search");
    assert_eq!(f["processes"], json!(multiply));
    assert_eq!(f["processors"], json!(64), "multiply runs on every processor");
    let (_, f) = d.search("P5");
    assert_eq!(f["pproc"], json!(5));
    // A slice: processor 1's longest busy interval, clicked across its length until a
    // click lands clear of the message lines drawn over it (a line within 3 pixels is
    // what a click picks first). The panel names its process, function, start, duration
    // and line, and the source view marks that line.
    let &(p, pid, s, e, line) = busy.iter().filter(|b| b.0 == 1).max_by_key(|b| b.3 - b.2).expect("P1 ran");
    // Zoomed in on it first (the whole-run view draws a thousand message lines over
    // slices a few pixels wide): the key 0 resets the window, six wheel notches zoom.
    d.key("0");
    d.wheel(d.at(p, (s + e) as f64 / 2.0), 6);
    let mut picked = None;
    for k in [5, 3, 7, 2, 8, 1, 9, 4, 6] {
        d.click(d.at(p, s as f64 + (e - s) as f64 * f64::from(k) / 10.0));
        let (kind, f) = d.details();
        if kind != "message" {
            picked = Some((kind, f));
            break;
        }
    }
    let (kind, f) = picked.expect("some point of the slice is clear of message lines");
    assert_eq!(kind, "slice", "{f}");
    assert_eq!(f["pproc"], json!(p));
    assert_eq!(f["state"], json!("running"));
    assert_eq!(f["pid"], json!(pid));
    assert_eq!(f["function"].as_str(), functions.get(&u64::from(pid)).map(String::as_str));
    assert_eq!(f["start"].as_f64(), Some(s as f64 / tpu));
    assert_eq!(f["duration"].as_f64(), Some((e - s) as f64 / tpu));
    assert_eq!(f["line"], json!(line));
    assert_eq!(d.marked_line(), json!(line), "the slice's line is marked in the source view");

    // The search box again: the slice's line, and the processors that ran it.
    let on_line: std::collections::BTreeSet<u32> = busy.iter().filter(|b| b.4 == line).map(|b| b.0).collect();
    let (_, f) = d.search(&format!("line {line}"));
    assert_eq!(f["processors"], json!(on_line.len()), "processors that ran line {line}");
    assert_eq!(d.marked_line(), json!(line));
    let errors = d.script("return window.cppeReport.errors();");
    assert_eq!(errors, json!([]), "script errors");
}

/// A report made from someone else's program runs nothing of it: the source's comments
/// and strings and the probe labels hold `</script>`, `<!--`, `<img onerror=…>` and
/// quotes (CPC's function and channel names are identifiers, which cannot hold markup).
/// Opened in Chromium, the page draws every view, its script's self-check runs (so the
/// Content-Security-Policy's hash admits the page's own script), the console stays
/// empty (a blocked handler would be logged), no element from the source exists, and the
/// source view shows the text as text.
#[test]
fn a_hostile_source_is_shown_as_text_and_runs_nothing() {
    if crate::truth::chromium().is_none() {
        return;
    }
    let dir = tempdir("browser-hostile");
    let hostile =
        r#"</script><!--<script>document.title='pwned'</script><img src=x onerror="document.title='pwned'"> ' " &amp;"#;
    let src = format!(
        "/* {hostile} */\n#include \"cpc.h\"\narch shared S[2];\nphyArch fullconnect PF[2];\nvoid w(int k) {{ delay(k); }}\nvoid main() {{\n    probe(1, \"</script><img src=x onerror='document.title=1'><!--\");\n    fork w(5);\n    join;\n    probe(2, \"\\\" ' <b>bold</b>\");\n    printf(\"<script>document.title='pwned'</script>\\n\");\n}}\n"
    );
    std::fs::write(dir.join("hostile.c"), &src).unwrap();
    let inc = fixtures().join("include");
    let out = run_in(&dir, "cpcc", &["-I", inc.to_str().unwrap(), "hostile.c", "-o", "hostile.cod"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run_in(&dir, "cpss", &["hostile.cod", "-t", "hostile.cpt", "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run_in(&dir, "cpperf", &["hostile.cpt", "--html", "hostile.html"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(dir.join("hostile.html")).unwrap();
    assert!(page.contains("Content-Security-Policy") && page.contains("default-src 'none'"), "a CSP");
    assert!(!page.contains("onerror") && !page.contains("pwned"), "the source's text is not in the page as markup");
    let url = format!("file://{}#selfcheck", dir.join("hostile.html").display());
    let out = crate::truth::headless("hostile", &["--virtual-time-budget=5000", "--dump-dom"], &url);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("CONSOLE") && !err.contains("Uncaught"), "console: {err}");
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(dom.contains("<pre id=\"selfcheck\">"), "the page's own script ran: {err}");
    assert!(dom.contains("\"errors\":[]"), "script errors: {dom}");
    for view in ["\"timeline\"", "\"details\"", "\"topology\"", "\"wcpa\"", "\"source\""] {
        assert!(dom.contains(view), "view {view} drawn");
    }
    assert!(
        !dom.contains("<img") && !dom.contains("<b>bold") && !dom.contains("pwned</title>"),
        "markup from the source"
    );
    assert!(dom.contains("&lt;/script&gt;&lt;!--&lt;script&gt;"), "the comment shown as text in the source view");
    assert!(dom.contains("&lt;b&gt;bold&lt;/b&gt;"), "the probe label shown as text");
}

/// A sweep of the seed's matmul over four machine sizes, three runs each with varied
/// processor speeds, drawn by `cpperf --html`: in Chromium the speedup chart has a point
/// per machine size at the mean of its runs and an interval bar from the CSV's 95 %
/// bounds (Student's t, as cpss computed them), x being the processors used.
#[test]
fn a_sweep_s_speedup_chart_has_interval_bars_in_chromium() {
    if crate::truth::chromium().is_none() {
        return;
    }
    let dir = tempdir("browser-sweep");
    let src = fixtures().join("matmul.c");
    assert_eq!(run_in(&dir, "cpcc", &[src.to_str().unwrap(), "-o", "m.cod"], b"").status.code(), Some(0));
    let sweep =
        ["m.cod", "--sweep", "topology=mesh:1x2,mesh:2x2,mesh:4x4,mesh:8x8", "--runs", "3", "--vary-speed", "7"];
    let out = run_in(&dir, "cpss", &[&sweep[..], &["--stats", "csv"]].concat(), b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(dir.join("sweep.csv"), &out.stdout).unwrap();
    let out = run_in(&dir, "cpperf", &["sweep.csv", "--html", "sweep.html"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    // The CSV's speedup mean and bounds per processors used.
    let text = std::fs::read(dir.join("sweep.csv")).unwrap();
    let mut r = csv::Reader::from_reader(&text[..]);
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    let want: Vec<[f64; 4]> = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            let v = |n: &str| rec[col(n)].parse::<f64>().unwrap();
            [v("pprocs_used_mean"), v("speedup_mean"), v("speedup_ci95_low"), v("speedup_ci95_high")]
        })
        .collect();
    assert_eq!(want.iter().map(|w| w[0]).collect::<Vec<_>>(), [2.0, 4.0, 16.0, 64.0]);
    let url = format!("file://{}", dir.join("sweep.html").display());
    let out = crate::truth::headless("sweep", &["--dump-dom"], &url);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("CONSOLE") && !err.contains("Uncaught"), "console: {err}");
    let dom = String::from_utf8_lossy(&out.stdout);
    let chart =
        dom.split("id=\"chart-speedup\"").nth(1).and_then(|c| c.split("</svg>").next()).expect("the speedup chart");
    let attr = |tag: &str, name: &str| -> f64 { attr(tag, name).unwrap_or_else(|| panic!("{name} in {tag}")) };
    let bars: Vec<[f64; 4]> = chart
        .split("<line class=\"ci\"")
        .skip(1)
        .map(|t| [attr(t, "data-x"), attr(t, "data-mean"), attr(t, "data-low"), attr(t, "data-high")])
        .collect();
    assert_eq!(bars.len(), 4, "an interval bar per machine size");
    for (b, w) in bars.iter().zip(&want) {
        for k in 0..4 {
            assert!((b[k] - w[k]).abs() <= 1e-6 * w[k].abs().max(1.0), "bar {b:?} vs CSV {w:?}");
        }
        assert!(b[2] < b[1] && b[1] < b[3], "the mean inside its interval: {b:?}");
    }
}

/// The report of the 64x64 matrix multiplication (4096 processes on a 64x64 mesh): at
/// most 5 MB; in Chromium the timeline's rows are at most 256 blocks, the topology a heat
/// grid, the communication matrix summed into blocks, and nothing wider than the page
/// (a screenshot is left in target/report/matmul64.png). The unmatched-messages view of
/// `unreceived_send` jumps to its message.
#[test]
fn the_64x64_report_fits_the_page_and_the_unmatched_view_jumps() {
    let Some(d) = Driver::start("m64") else { return };
    let dir = tempdir("browser-m64");
    matmul_record(&dir, 64);
    let out = run_in(&dir, "cpperf", &["m64.cpt", "--html", "m64.html"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let size = std::fs::metadata(dir.join("m64.html")).unwrap().len();
    assert!(size <= 5 << 20, "the 64x64 report is {size} bytes");
    d.open(&dir.join("m64.html"));
    let v = d.script(
        "const w = (id) => document.getElementById(id).getBoundingClientRect().right; \
         return [document.documentElement.scrollWidth, window.innerWidth, w('timeline'), w('topology'), w('matrix'), \
         document.getElementById('topology').tagName, document.getElementById('matrix-scale').textContent, \
         document.getElementById('timeline').height];",
    );
    let (scroll, inner) = (v[0].as_f64().unwrap(), v[1].as_f64().unwrap());
    assert!(scroll <= inner, "the page scrolls sideways: {scroll} > {inner}");
    for k in 2..5 {
        assert!(v[k].as_f64().unwrap() <= inner, "a view wider than the page: {v}");
    }
    assert_eq!(v[5], json!("CANVAS"), "the 64x64 mesh as a heat grid");
    assert!(v[6].as_str().unwrap().contains("32 × 32 processors a cell"), "{}", v[6]);
    assert!(v[7].as_f64().unwrap() <= 256.0 * 3.0 + 30.0, "timeline height {}", v[7]);
    assert_eq!(d.script("return window.cppeReport.errors();"), json!([]));
    let shot = d.cmd("GET", "/screenshot", Value::Null);
    let png = cppe::perf::html::unbase64(shot.as_str().unwrap()).expect("base64");
    assert!(png.starts_with(b"\x89PNG"));
    let report = root().join("target/report");
    std::fs::create_dir_all(&report).unwrap();
    std::fs::write(report.join("matmul64.png"), png).unwrap();

    // The unmatched view: unreceived_send sends one message nobody receives.
    let (_, cpt) = records().iter().find(|(n, _)| n == "unreceived_send").expect("unreceived_send ran");
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--html", "u.html"], b"");
    assert_eq!(out.status.code(), Some(0));
    let j: Value =
        serde_json::from_slice(&run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "json"], b"").stdout)
            .unwrap();
    let sent = &j["unmatched_sends"][0];
    d.open(&dir.join("u.html"));
    d.script("document.querySelector('#unmatched button').click();");
    let (kind, f) = d.details();
    assert_eq!(kind, "unmatched");
    assert_eq!(f["pid"], sent["pid"]);
    assert_eq!(f["element"], sent["element"]);
    let w = d.script("return window.cppeReport.window();");
    let t = sent["time"].as_f64().unwrap() * 1000.0;
    assert!(w[0].as_f64().unwrap() <= t && t <= w[1].as_f64().unwrap(), "the window {w} holds the send at {t}");
}
