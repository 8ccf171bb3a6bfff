"""The operations' forms, one per file; form.py holds their common shape."""
