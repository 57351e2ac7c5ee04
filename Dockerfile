# tiyin in a container: a static binary on a distroless base, run as a non-root user.
#   docker build -t tiyin .
#   docker run -p 8080:8080 tiyin            (the sandbox on SQLite, in the container)
#   docker compose up                        (the sandbox on PostgreSQL 15: compose.yaml)

FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
ARG COMMIT=unknown
# Pure Go (the SQLite driver is modernc's), so the binary is static.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/tiyin/tiyin/server.version=${VERSION} -X github.com/tiyin/tiyin/server.commit=${COMMIT}" -o /out/tiyin ./cmd/tiyin \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/tiyin /usr/local/bin/tiyin
COPY --from=build --chown=nonroot:nonroot /out/data /data
WORKDIR /data
ENV TIYIN_HTTP_ADDR=:8080 \
    TIYIN_SQLITE_PATH=/data/tiyin.db
EXPOSE 8080
USER nonroot:nonroot
# The binary asks its own /readyz (the database reachable, every migration applied): the
# distroless image has no shell or curl. Five misses in a row (50 s, which covers a start's
# migrations) make the container unhealthy.
HEALTHCHECK --interval=10s --timeout=5s --retries=5 CMD ["/usr/local/bin/tiyin", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/tiyin"]
CMD ["serve"]
