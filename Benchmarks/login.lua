-- wrk script: POST /auth/token with the HTTP Basic credentials in BENCH_BASIC ("Basic ..."): one bcrypt
-- verification per request.
wrk.method = "POST"
wrk.headers["Authorization"] = os.getenv("BENCH_BASIC")
