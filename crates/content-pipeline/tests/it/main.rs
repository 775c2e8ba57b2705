//! Black-box tests over HTTP; modules are added below.
