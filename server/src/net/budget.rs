//! Readable rate limits: every response to a call that counts against a quota carries what
//! the caller has left of it, so that a client can pace itself before it is refused.
//!
//! [`BudgetLayer`] gives each request an empty [`BudgetSlot`]; authentication (`auth`)
//! fills it with the [`Budget`] its quota check saw (or, for a refused call, what the caller
//! has left: nothing, until `retry_after`); when the response's head leaves, the layer writes
//! it as metadata (HTTP headers; for a trailers-only refusal, the trailers), by the names of
//! the IETF `RateLimit` header fields draft:
//!
//! - `ratelimit-limit`: calls the caller may make at once with a full bucket (the burst);
//! - `ratelimit-remaining`: calls it may make at once now;
//! - `ratelimit-reset`: seconds (rounded up) until the bucket is full again;
//! - `ratelimit-policy`: `<burst>;w=<seconds to refill a whole burst>;name="<quota>"`.
//!
//! Calls that count against no quota (health, reflection, or with quotas off) carry none.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use http::HeaderValue;
use tower::{Layer, Service};

use crate::quota::Budget;

pub const LIMIT: &str = "ratelimit-limit";
pub const REMAINING: &str = "ratelimit-remaining";
pub const RESET: &str = "ratelimit-reset";
pub const POLICY: &str = "ratelimit-policy";

/// Where a call's quota check leaves the caller's budget.
#[derive(Debug, Clone, Default)]
pub struct BudgetSlot(Arc<Mutex<Option<Budget>>>);

impl BudgetSlot {
    /// Notes the budget of the call whose request has these extensions (if it came through
    /// the layer).
    pub fn note(extensions: &tonic::Extensions, budget: Option<Budget>) {
        if let (Some(slot), Some(budget)) = (extensions.get::<BudgetSlot>(), budget) {
            *slot.0.lock().expect("not poisoned") = Some(budget);
        }
    }

    fn take(&self) -> Option<Budget> {
        self.0.lock().expect("not poisoned").take()
    }
}

fn seconds_up(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

/// The metadata of a budget.
pub fn headers(budget: &Budget) -> [(&'static str, String); 4] {
    [
        (LIMIT, budget.limit.to_string()),
        (REMAINING, budget.remaining.to_string()),
        (RESET, seconds_up(budget.full_in).to_string()),
        (
            POLICY,
            format!(
                "{};w={};name=\"{}\"",
                budget.limit,
                seconds_up(budget.interval * budget.limit),
                budget.quota
            ),
        ),
    ]
}

/// See the module's header.
#[derive(Debug, Clone, Copy, Default)]
pub struct BudgetLayer;

impl<S> Layer<S> for BudgetLayer {
    type Service = BudgetService<S>;

    fn layer(&self, inner: S) -> BudgetService<S> {
        BudgetService { inner }
    }
}

#[derive(Debug, Clone)]
pub struct BudgetService<S> {
    inner: S,
}

type BoxFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

impl<S, B, R> Service<http::Request<B>> for BudgetService<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    R: Send + 'static,
{
    type Response = http::Response<R>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let slot = BudgetSlot::default();
        request.extensions_mut().insert(slot.clone());
        let response = self.inner.call(request);
        Box::pin(async move {
            let mut response = response.await?;
            if let Some(budget) = slot.take() {
                for (name, value) in headers(&budget) {
                    if let Ok(value) = HeaderValue::from_str(&value) {
                        response.headers_mut().insert(name, value);
                    }
                }
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_reads_as_the_documented_metadata() {
        let budget = Budget {
            quota: "calls per player",
            remaining: 150,
            limit: 200,
            full_in: Duration::from_millis(1_001),
            interval: Duration::from_millis(20),
        };
        assert_eq!(
            headers(&budget),
            [
                (LIMIT, "200".to_string()),
                (REMAINING, "150".to_string()),
                (RESET, "2".to_string()),
                (POLICY, "200;w=4;name=\"calls per player\"".to_string()),
            ]
        );
    }
}
