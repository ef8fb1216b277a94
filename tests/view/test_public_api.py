"""harness.view's public surface is small and pinned."""

import harness.view


def test_view_exports_exactly_its_public_api():
    assert sorted(harness.view.__all__) == sorted([
        "LIST_COLUMNS", "Report", "RunView", "TreeEntry", "list_runs", "load_run", "load_runs", "write_report"])
    for name in harness.view.__all__:
        assert hasattr(harness.view, name), name
