"""One collector per component for `check` and the Overview.

Each module exports `configured(ctx) -> bool` (is the component set up in this context?) and
`collect(ctx, deadline_at, **options) -> (findings, metrics)`; raising `NotEvaluated` makes the
component UNKNOWN with that reason. `deadline_at` is a time.monotonic() value.
"""
