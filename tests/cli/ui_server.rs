//! A `promptexec ui` started for a test: its address read from its first line of
//! output, plain HTTP/1.1 requests to it, and a stop by signal whose exit status is
//! returned. A server still running when the test ends is killed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStderr, ExitStatus};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value as Json;

use std::path::Path;

use crate::util::{promptexec, repo_root};

/// How long a start, a request or a stop may take before the test fails.
const DEADLINE: Duration = Duration::from_secs(30);

pub struct UiServer {
    child: Option<Child>,
    stderr: Option<ChildStderr>,
    /// The address printed, token included.
    pub url: String,
    /// `HOST:PORT`.
    pub authority: String,
    pub token: String,
}

/// One answer: its status, its head (lower-cased names) and its body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Json {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {}", self.body))
    }

    /// The value of header `name`, if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

impl UiServer {
    /// Starts `promptexec ui ARGS` and waits for the address it prints.
    pub fn start(args: &[&str]) -> UiServer {
        Self::start_with_env(args, &[])
    }

    /// [`UiServer::start`] with variables added to the environment.
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> UiServer {
        let mut invocation = promptexec().arg("ui").args(args);
        for (name, value) in env {
            invocation = invocation.env(name, value);
        }
        let mut child = invocation.spawn();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take();
        let (sent, got) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sent.send(line);
        });
        let mut server = UiServer {
            child: Some(child),
            stderr,
            url: String::new(),
            authority: String::new(),
            token: String::new(),
        };
        let line = got.recv_timeout(DEADLINE).unwrap_or_default();
        let Some(rest) = line.trim().strip_prefix("http://") else {
            let status = server.stop(Signal::SIGKILL);
            panic!(
                "no address on stdout (`{line}`), {status}; stderr:\n{}",
                server.stderr_text()
            );
        };
        let (authority, token) = rest
            .split_once("/?token=")
            .expect("`/?token=` in the address");
        server.url = line.trim().to_string();
        server.authority = authority.to_string();
        server.token = token.to_string();
        server
    }

    /// `METHOD PATH` with `headers`, the token header added unless `with_token` is
    /// false, and a JSON `body`.
    pub fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&Json>,
        with_token: bool,
    ) -> Reply {
        let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            request.push_str(&format!("Host: {}\r\n", self.authority));
        }
        for (key, value) in headers {
            request.push_str(&format!("{key}: {value}\r\n"));
        }
        if with_token {
            request.push_str(&format!("X-Promptexec-Token: {}\r\n", self.token));
        }
        let body = body.map(Json::to_string).unwrap_or_default();
        if method != "GET" {
            request.push_str("Content-Type: application/json\r\n");
            request.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        request.push_str("\r\n");
        request.push_str(&body);
        let mut stream = TcpStream::connect(&self.authority).expect("connect to the server");
        stream.set_read_timeout(Some(DEADLINE)).expect("timeout");
        stream
            .write_all(request.as_bytes())
            .expect("send the request");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("read the answer");
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        assert!(
            !head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked"),
            "answers have a length: {head}"
        );
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .expect("a status");
        Reply {
            status,
            head: head.to_string(),
            body: body.to_string(),
        }
    }

    /// `GET PATH` with the token.
    pub fn get(&self, path: &str) -> Reply {
        self.send("GET", path, &[], None, true)
    }

    /// `POST PATH` of `body` with the token.
    pub fn post(&self, path: &str, body: &Json) -> Reply {
        self.send("POST", path, &[], Some(body), true)
    }

    /// Sends `signal` and waits for the exit.
    pub fn stop(&mut self, signal: Signal) -> ExitStatus {
        let mut child = self.child.take().expect("the server runs");
        let _ = kill(Pid::from_raw(child.id() as i32), signal);
        let (sent, got) = mpsc::channel();
        let pid = child.id() as i32;
        std::thread::spawn(move || {
            let _ = sent.send(child.wait());
        });
        match got.recv_timeout(DEADLINE) {
            Ok(status) => status.expect("the server is waited for"),
            Err(_) => {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                panic!("the server did not exit within {DEADLINE:?} of {signal}");
            }
        }
    }

    /// What the server wrote on stderr (once it has exited).
    pub fn stderr_text(&mut self) -> String {
        let mut text = String::new();
        if let Some(mut stderr) = self.stderr.take() {
            let _ = stderr.read_to_string(&mut text);
        }
        text
    }
}

impl Drop for UiServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The example library: four `.prompt` files, one a partial of the others.
const EXAMPLE_LIBRARY: &str = "docs/examples/library";

/// A library holding the example prompts, in `dir`.
pub fn example_library(dir: &Path) -> String {
    let library = dir.join("lib.db").to_str().expect("utf-8").to_owned();
    promptexec()
        .in_dir(repo_root())
        .args(["prompt", "add", EXAMPLE_LIBRARY, "--library", &library])
        .run()
        .expect_code(0);
    library
}
