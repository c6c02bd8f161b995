"""A tournament's results folder: its files, the rows of games.csv, who the entrants are, checking and recovering what is stored."""
