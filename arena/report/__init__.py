"""A tournament's tables, text, plots and HTML report."""
