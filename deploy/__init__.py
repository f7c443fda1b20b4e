"""The compose deployment run here for real with podman (``make deploy-test``)."""
