"""The service's runtime: the API process's shared companions of the match service.

The turn clock, the live broker and the facts cache, held by ``ApiRuntime``; used by the
API, the command line and the tests, and never importing the API.
"""
