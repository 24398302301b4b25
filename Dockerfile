# syntax=docker/dockerfile:1
# Build: a static binary (no cgo: SQLite for WhatsApp is pure Go).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Add --build-arg TAGS=nowhatsapp for a binary without the WhatsApp adapter
# (and without GPL-3.0 libsignal; see README, "Licensing").
ARG TAGS=""
RUN CGO_ENABLED=0 go build -tags "$TAGS" -trimpath -ldflags="-s -w" -o /out/botgw ./cmd/botgw

# Run: distroless static, as the non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/botgw /usr/local/bin/botgw
USER nonroot:nonroot
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["/usr/local/bin/botgw", "health", "-url", "http://127.0.0.1:8080/healthz"]
# Mount a config and point BOTGW_CONFIG at it; set redis.url for durability.
# Without one the web chat stays off (0.0.0.0 is not loopback): it needs
# channels.web.allowed_origins or channels.web.token (README, "Web chat security").
ENTRYPOINT ["/usr/local/bin/botgw"]
CMD ["serve", "-listen", "0.0.0.0:8080"]
