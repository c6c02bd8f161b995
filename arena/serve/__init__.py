"""``arena serve``: a local web app that shows results folders, also while a run writes them (needs the serve extra)."""
