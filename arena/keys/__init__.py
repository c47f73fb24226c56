"""The arena's secrets: keys, the seeds derived from them (``seeds``) and key files
(``keyfile``), kept outside the results database and hidden from bots."""
