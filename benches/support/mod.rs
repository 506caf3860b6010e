//! What the benchmark binaries share: the allocator `semgraph` ships with, `--name value`
//! arguments and the peak RSS reading.

/// The allocator of the `semgraph` binary (`src/main.rs`): a benchmark measures the
/// indexer and the server as they run for a user. Under the C library's allocator the same
/// 1M-line company indexed 35% slower with a higher peak.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The value after `--name` on the command line, parsed; `default` when absent or unparsable.
pub(crate) fn arg<T: std::str::FromStr>(name: &str, default: T) -> T {
    let argv: Vec<String> = std::env::args().collect();
    argv.iter()
        .position(|a| a == name)
        .and_then(|i| argv.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Peak resident memory of this process in MB (Linux `VmHWM`), since start or the last
/// [`reset_peak_rss`].
#[allow(dead_code)]
pub(crate) fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

/// Resets the kernel's peak-RSS mark to the current RSS (Linux `clear_refs` 5).
#[allow(dead_code)]
pub(crate) fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The `p` quantile (0.0–1.0) of sorted durations.
#[allow(dead_code)]
pub(crate) fn percentile(sorted: &[std::time::Duration], p: f64) -> std::time::Duration {
    if sorted.is_empty() {
        return std::time::Duration::ZERO;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx]
}

/// Milliseconds of a duration.
#[allow(dead_code)]
pub(crate) fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
