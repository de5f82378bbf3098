# llmload's container image: a static binary on distroless, as a non-root
# user. Build: docker build -t llmload:latest --build-arg VERSION=$(git describe --tags --always) .
# Used by the Kubernetes example (examples/k8s/, docs/scale-out.md).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# CGO_ENABLED=0: a static binary that needs no libc in the image.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/llmload ./cmd/llmload

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/llmload /usr/local/bin/llmload
# distroless's nonroot user; the Job's securityContext asks for the same.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/llmload"]
