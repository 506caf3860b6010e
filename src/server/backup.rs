//! `POST /api/v1/admin/backup`: a checkpoint of the served store, taken by the server.
//!
//! A running server owns its store's RocksDB lock, so no other process can take a
//! consistent copy; the server takes it from inside ([`semgraph_storage::Store::checkpoint`])
//! while it keeps answering and while an index job runs (a commit waits for the checkpoint,
//! so the copy holds exactly one committed generation). The destination is fixed by the
//! store's path — `<store>.backups/backup-<unix ms>`, on the store's filesystem so table
//! files are hard links — and never by the request: the route takes no parameter. Admin
//! routes need full access, as for index jobs.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, Method};
use axum::response::{IntoResponse, Response};
use semgraph_queries::Document;

use super::admin::admin_caller;
use super::error::ApiError;
use super::routes::{answer_document, body_params, query_params, strict};
use super::AppState;
use crate::answer::{Paging, Problem};

/// Path that writes a backup.
pub(crate) const ADMIN_BACKUP_PATH: &str = "/api/v1/admin/backup";

/// `POST /api/v1/admin/backup` (no parameters): writes a checkpoint and answers its path and
/// generation.
pub(crate) async fn start_backup(
    State(state): State<AppState>,
    method: Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    let (format, _) = match admin_caller(&state, &method, Method::POST, &headers, ADMIN_BACKUP_PATH) {
        Ok(c) => c,
        Err(answer) => return *answer,
    };
    let checked = (|| {
        let mut params = query_params(ADMIN_BACKUP_PATH, query.as_deref())?;
        body_params(ADMIN_BACKUP_PATH, "{}", &body, &mut params, &|_| None)?;
        strict(ADMIN_BACKUP_PATH, &params, &[])
    })();
    if let Err(p) = checked {
        return ApiError::new(p, format).into_response();
    }
    let store = state.store().clone();
    let written = tokio::task::spawn_blocking(move || {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let to = crate::backup_cmd::backup_root(store.path()).join(format!("backup-{millis}"));
        store.checkpoint(&to).map(|generation| (to, generation))
    })
    .await;
    let (to, generation) = match written {
        Ok(Ok(done)) => done,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "backup failed");
            return ApiError::new(
                Problem {
                    status: 500,
                    code: "backup_failed",
                    body: format!(
                        "# 500: the backup failed\n\n{e}.\n\nThe store and what it serves are unchanged.\n"
                    ),
                },
                format,
            )
            .into_response();
        }
        Err(_) => {
            tracing::error!("the backup task panicked");
            return ApiError::new(Problem::internal(), format).into_response();
        }
    };
    tracing::info!(generation, path = %to.display(), "backup written");
    let markdown = format!(
        "# Backup written\n\n`{}` holds generation {generation} of the store, whole. Restore by \
         serving it: `semgraph serve --store {}`. It shares its table files with the store by hard \
         links: copy it off this disk (e.g. `tar`, `rsync`) to survive the disk.\n",
        to.display(),
        to.display()
    );
    let doc = Document::new(
        "Backup written",
        markdown,
        &serde_json::json!({
            "path": to.display().to_string(),
            "generation": generation,
        }),
    );
    answer_document(&doc, Paging::default(), format)
}
