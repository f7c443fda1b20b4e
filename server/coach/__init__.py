"""The coach: a hint at the table (``hints``), a review of each finished game with a person at it
(``reviews``, off the tables' path) and the pages that serve them (``routes``)."""
