//! The server's one error type: a [`Problem`] in the format the caller asked for.
//!
//! Status codes come from one table (`answer::Problem::from(QueryError)`); this type only
//! writes the response: the markdown body, or its JSON wrapping, and `WWW-Authenticate` on
//! a 401. Internal causes never reach a body: they are logged where they happen.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::answer::{Format, Problem};

/// An error answer of the API.
#[derive(Clone, Debug)]
pub struct ApiError {
    /// What went wrong, with its status and body.
    pub problem: Problem,
    /// The format the caller asked for.
    pub format: Format,
}

impl ApiError {
    /// `problem`, written in `format`.
    pub fn new(problem: Problem, format: Format) -> ApiError {
        ApiError { problem, format }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, self.problem.render(self.format)).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.format.content_type()),
        );
        if status == StatusCode::UNAUTHORIZED {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}
