//! The language front-ends: each turns one file into plain facts and never fails (a
//! broken file is facts plus warnings). Nothing here knows about storage, frameworks or
//! other files: a front-end sees one file's text and says what it declares.

pub(crate) mod budget;
pub(crate) mod build;
pub(crate) mod config;
pub(crate) mod java;
pub(crate) mod jira;
pub(crate) mod liquibase;
pub(crate) mod schemas;
pub(crate) mod sql;
pub(crate) mod wiki;
pub(crate) mod xml;
