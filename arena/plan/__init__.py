"""Planning a tournament: its file, the seatings of a deal and the schedule of its games."""
