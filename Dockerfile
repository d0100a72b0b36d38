# The gguflint container: Debian's slim base with the release's .deb.
# ci/release.sh builds it (when `docker info` works) with the artefact folder
# as the context:
#   docker build -t gguflint:VERSION -f Dockerfile --build-arg DEB=gguflint_VERSION_amd64.deb build-artefacts
#   docker run --rm -v "$PWD:/work:ro" gguflint:VERSION --profile security model.gguf
# libcurl and CA certificates are installed for URL inputs (https://, hf://).
FROM debian:bookworm-slim
ARG DEB
COPY ${DEB} /tmp/
RUN apt-get update \
 && apt-get install -y --no-install-recommends "/tmp/${DEB}" libcurl4 ca-certificates \
 && rm -rf /var/lib/apt/lists/* "/tmp/${DEB}" \
 && useradd --system --no-create-home gguflint
USER gguflint
WORKDIR /work
ENTRYPOINT ["gguflint"]
CMD ["--help"]
