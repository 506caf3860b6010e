//! One chunk ahead: the parallel work on the next chunk of files (reading, parsing,
//! resolving, recognising, on the rayon pool) runs while this thread writes the chunk before
//! it.
//!
//! Writing is sequential by design — `emit` holds the one `ProductWriter`, and node ids are
//! given in file order so that a run writes the same graph every time — and it is a quarter
//! of an index run's work. Done between the parallel steps, it left one of the two cores idle
//! for that quarter; done beside them, both are busy. Chunks are still written in order, by
//! the caller's thread, so the graph is exactly the one a strictly alternating run writes.
//!
//! Memory stays bounded by the chunk size: at most one chunk is being written, one waits in
//! the channel and one is being prepared.

use std::sync::mpsc::sync_channel;

/// Calls `prepare` on each chunk on a helper thread (which hands its parallel work to the
/// rayon pool) and `write` on this thread with each chunk and what was prepared for it, in
/// order, the next chunk being prepared while one is written. The first error, of either,
/// stops both and is returned; a chunk after it is neither written nor (past the one being
/// prepared) prepared.
pub(crate) fn write_one_ahead<C, T, E>(
    chunks: impl Iterator<Item = C> + Send,
    prepare: impl Fn(&C) -> Result<T, E> + Sync,
    mut write: impl FnMut(C, T) -> Result<(), E>,
) -> Result<(), E>
where
    C: Send,
    T: Send,
    E: Send,
{
    std::thread::scope(|scope| {
        let (ready, prepared) = sync_channel::<(C, Result<T, E>)>(1);
        let prepare = &prepare;
        scope.spawn(move || {
            for chunk in chunks {
                let result = prepare(&chunk);
                let failed = result.is_err();
                // A closed channel: the writer stopped at an error and wants no more.
                if ready.send((chunk, result)).is_err() || failed {
                    break;
                }
            }
        });
        // Ends when the helper is done (its sender dropped); a panic there is re-raised
        // when the scope joins it, so a chunk is never silently missing.
        for (chunk, result) in prepared {
            write(chunk, result?)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::write_one_ahead;

    #[test]
    fn every_chunk_is_written_in_order_with_what_was_prepared_for_it() {
        let mut written = Vec::new();
        let result: Result<(), String> = write_one_ahead(
            (0..50u32).map(|i| vec![i; 3]),
            |chunk| Ok(chunk.iter().sum::<u32>()),
            |chunk, sum| {
                written.push((chunk[0], sum));
                Ok(())
            },
        );
        assert_eq!(result, Ok(()));
        let expected: Vec<(u32, u32)> = (0..50).map(|i| (i, 3 * i)).collect();
        assert_eq!(written, expected);
    }

    #[test]
    fn the_first_error_stops_both_sides() {
        let prepared = std::sync::atomic::AtomicU32::new(0);
        let mut written = Vec::new();
        let result: Result<(), String> = write_one_ahead(
            0..1000u32,
            |&i| {
                prepared.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if i == 7 {
                    Err(format!("prepare failed at {i}"))
                } else {
                    Ok(i)
                }
            },
            |_, i| {
                written.push(i);
                Ok(())
            },
        );
        assert_eq!(result, Err("prepare failed at 7".to_string()));
        assert_eq!(written, (0..7).collect::<Vec<_>>());
        assert_eq!(prepared.load(std::sync::atomic::Ordering::SeqCst), 8);

        let prepared = std::sync::atomic::AtomicU32::new(0);
        let result: Result<(), String> = write_one_ahead(
            0..1000u32,
            |&i| {
                prepared.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(i)
            },
            |_, i| {
                if i == 3 {
                    Err(format!("write failed at {i}"))
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(result, Err("write failed at 3".to_string()));
        // The helper ran at most a couple of chunks past the failed write, never the rest.
        assert!(prepared.load(std::sync::atomic::Ordering::SeqCst) <= 7);
    }
}
