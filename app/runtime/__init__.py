"""The service's runtime: the shared companions of the match service in one serving process.

``ApiRuntime`` holds the turn clock, the live broker and the facts cache beside the service; the
API (``basra serve``), the benchmarks and the tests build one, and it never imports the API.
"""
