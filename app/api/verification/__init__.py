"""A stored match verified and analysed over HTTP (``basra verify``, ``basra analyse``)."""
