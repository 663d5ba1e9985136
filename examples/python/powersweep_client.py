#!/usr/bin/python3
"""powersweep_client.py: a Python client of powersweep-controller's gRPC
API, with Debian's python3-grpcio and python3-grpc-tools only.

It compiles proto/powersweep/v1/*.proto with grpc_tools at start-up (into
--stubs_dir, regenerated when a .proto is newer, or a temporary folder),
so no generated code is kept in the repository.

  /usr/bin/python3 examples/python/powersweep_client.py health
  /usr/bin/python3 examples/python/powersweep_client.py health --watch
  /usr/bin/python3 examples/python/powersweep_client.py services
  /usr/bin/python3 examples/python/powersweep_client.py devices
  /usr/bin/python3 examples/python/powersweep_client.py submit examples/python/twin-sweep.json
  /usr/bin/python3 examples/python/powersweep_client.py wait 1
  /usr/bin/python3 examples/python/powersweep_client.py sweeps
  /usr/bin/python3 examples/python/powersweep_client.py runs 1

Exit codes: 0 ok, 1 a failed request (or health not SERVING, or failed
runs for `wait`), 2 bad usage, 3 controller unreachable.
"""
import argparse
import glob
import os
import shutil
import sys
import tempfile
import time

import grpc

sys.dont_write_bytecode = True  # no __pycache__ beside the example
import grpc_std  # pylint: disable=wrong-import-position

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROTO_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "proto"))


def load_stubs(proto_dir, stubs_dir):
    """Compiles the powersweep protos (when needed) and imports them."""
    protos = sorted(glob.glob(os.path.join(proto_dir, "powersweep", "v1",
                                           "*.proto")))
    if not protos:
        sys.exit("powersweep_client: --proto_dir: no powersweep/v1/*.proto "
                 "under %s" % proto_dir)
    marker = os.path.join(stubs_dir, "powersweep", "v1", "control_pb2_grpc.py")
    newest = max(os.path.getmtime(p) for p in protos)
    if not os.path.exists(marker) or os.path.getmtime(marker) < newest:
        from grpc_tools import protoc
        args = ["grpc_tools.protoc", "-I" + proto_dir,
                "--python_out=" + stubs_dir, "--grpc_python_out=" + stubs_dir]
        try:  # the well-known types grpc_tools ships, if any .proto needs them
            import pkg_resources
            args.append("-I" + pkg_resources.resource_filename(
                "grpc_tools", "_proto"))
        except Exception:  # pylint: disable=broad-except
            pass
        os.makedirs(stubs_dir, exist_ok=True)
        if protoc.main(args + protos) != 0:
            sys.exit("powersweep_client: grpc_tools.protoc failed on %s" %
                     proto_dir)
    sys.path.insert(0, stubs_dir)
    from powersweep.v1 import control_pb2, control_pb2_grpc, device_pb2
    from powersweep.v1 import run_pb2, sweep_pb2
    return control_pb2, control_pb2_grpc, device_pb2, run_pb2, sweep_pb2


class Client:
    def __init__(self, args):
        self.args = args
        if args.tls_ca:
            with open(args.tls_ca, "rb") as f:
                creds = grpc.ssl_channel_credentials(root_certificates=f.read())
            self.channel = grpc.secure_channel(args.controller, creds)
        else:
            self.channel = grpc.insecure_channel(args.controller)
        token = os.environ.get("POWERSWEEP_TOKEN", "")
        if args.token_file:
            with open(args.token_file) as f:
                token = f.read().strip()
        self.metadata = [("authorization", "Bearer " + token)] if token else []
        (self.control_pb2, grpc_mod, self.device_pb2, self.run_pb2,
         self.sweep_pb2) = load_stubs(args.proto_dir, args.stubs_dir)
        self.stub = grpc_mod.ControlStub(self.channel)

    def call(self, method, request):
        return getattr(self.stub, method)(request, timeout=self.args.timeout_s,
                                          metadata=self.metadata)


def cmd_health(c):
    service = c.args.service
    if c.args.watch:
        # One line per status, as it changes, until the server ends the
        # stream; exit 0 if the server said NOT_SERVING before it ended.
        last = None
        try:
            for status in grpc_std.health_watch(c.channel, service):
                print("health %s: %s" % (service or "server", status),
                      flush=True)
                last = status
        except grpc.RpcError as e:
            print("health watch ended: %s" % e.code().name, flush=True)
        return 0 if last == "NOT_SERVING" else 1
    status = grpc_std.health_check(c.channel, service, c.args.timeout_s)
    print("health %s: %s" % (service or "server", status))
    return 0 if status == "SERVING" else 1


def cmd_services(c):
    for name in grpc_std.list_services(c.channel, c.args.timeout_s):
        print("service %s" % name)
    files = grpc_std.file_containing_symbol(c.channel, "powersweep.v1.Control",
                                            c.args.timeout_s)
    for f in files:
        for s in f.service:
            if s.name == "Control":
                print("reflection: powersweep.v1.Control in %s has %d methods: "
                      "%s" % (f.name, len(s.method),
                              ", ".join(m.name for m in s.method)))
    return 0


def cmd_devices(c):
    resp = c.call("ListDevices", c.control_pb2.ListDevicesRequest())
    print("%-20s %-10s %-8s %-9s %-8s %s" %
          ("DEVICE", "CLASS", "PLATFORM", "CONNECTED", "HEALTH", "RUN"))
    for d in resp.devices:
        health = "-"
        if d.HasField("health"):
            health = "ok" if d.health.healthy else "FAILING"
        print("%-20s %-10s %-8s %-9s %-8s %s" % (
            d.identity.device_id, d.identity.device_class, d.identity.platform,
            "yes" if d.connected else "no", health, d.current_run_id or "-"))
    return 0


def cmd_submit(c):
    from google.protobuf import json_format
    with open(c.args.file) as f:
        spec = json_format.Parse(f.read(), c.sweep_pb2.SweepSpec())
    resp = c.call("SubmitSweep", c.control_pb2.SubmitSweepRequest(spec=spec))
    print("submitted sweep %d: %d runs" % (resp.sweep_id, resp.run_count))
    for w in resp.warnings:
        print("warning: %s" % w)
    return 0


def cmd_wait(c):
    deadline = time.monotonic() + c.args.wait_s
    while True:
        s = c.call("GetSweep", c.control_pb2.GetSweepRequest(sweep_id=c.args.sweep))
        if s.finished or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    print("sweep %d '%s': %d/%d done, %d failed, %d cancelled%s" % (
        s.sweep_id, s.name, s.done, s.total, s.failed, s.cancelled,
        "" if s.finished else " (not finished)"))
    return 0 if s.finished and s.failed == 0 else 1


def cmd_sweeps(c):
    resp = c.call("ListSweeps", c.control_pb2.ListSweepsRequest())
    print("%-5s %-24s %-10s %-7s %s" % ("ID", "NAME", "DONE", "FAILED",
                                        "FINISHED"))
    for s in resp.sweeps:
        print("%-5d %-24s %-10s %-7d %s" % (
            s.sweep_id, s.name, "%d/%d" % (s.done, s.total), s.failed,
            "yes" if s.finished else "no"))
    return 0


def cmd_runs(c):
    resp = c.call("ListRuns", c.control_pb2.ListRunsRequest(sweep_id=c.args.sweep))
    run_state = c.run_pb2.RunState
    print("%-6s %-10s %-20s %-11s %-8s %-10s %s" % (
        "RUN", "STATE", "DEVICE", "MINIBATCHES", "MEAN_MS", "ENERGY_J",
        "POWER_FROM"))
    for r in resp.runs:
        s = r.summary
        provenance = c.device_pb2.Provenance.Name(s.energy_provenance)
        print("%-6d %-10s %-20s %-11d %-8.2f %-10.3f %s" % (
            r.spec.run_id,
            run_state.Name(r.state).replace("RUN_STATE_", "").lower(),
            r.device_id, s.minibatches, s.mean_minibatch_s * 1000, s.energy_j,
            provenance.replace("PROVENANCE_", "").lower()))
    return 0


COMMANDS = {"health": cmd_health, "services": cmd_services,
            "devices": cmd_devices, "submit": cmd_submit, "wait": cmd_wait,
            "sweeps": cmd_sweeps, "runs": cmd_runs}


def parse(argv):
    p = argparse.ArgumentParser(
        description="Python client of powersweep-controller (gRPC).")
    p.add_argument("--controller", default="127.0.0.1:7070",
                   help="HOST:PORT of the controller (default %(default)s)")
    p.add_argument("--token_file", default="",
                   help="file holding the Control bearer token (default: "
                        "$POWERSWEEP_TOKEN; none needed on loopback)")
    p.add_argument("--tls_ca", default="",
                   help="CA certificate (PEM): talk TLS (default plaintext)")
    p.add_argument("--proto_dir", default=DEFAULT_PROTO_DIR,
                   help="folder holding powersweep/v1/*.proto")
    p.add_argument("--stubs_dir", default="",
                   help="where to generate the Python stubs (kept; default "
                        "a temporary folder)")
    p.add_argument("--timeout_s", type=float, default=10.0,
                   help="deadline of each call")
    sub = p.add_subparsers(dest="command", required=True)
    h = sub.add_parser("health", help="grpc.health.v1 check")
    h.add_argument("--service", default="",
                   help="e.g. powersweep.v1.Control (default: the server)")
    h.add_argument("--watch", action="store_true",
                   help="follow the status until the server ends the stream "
                        "(exit 0 if it said NOT_SERVING first)")
    sub.add_parser("services", help="services, by server reflection")
    sub.add_parser("devices", help="registered devices")
    s = sub.add_parser("submit", help="submit a SweepSpec in protobuf JSON")
    s.add_argument("file")
    w = sub.add_parser("wait", help="wait until a sweep has finished")
    w.add_argument("sweep", type=int)
    w.add_argument("--wait_s", type=float, default=300.0)
    sub.add_parser("sweeps", help="every sweep with its run counts")
    r = sub.add_parser("runs", help="one line per run of a sweep (summary)")
    r.add_argument("sweep", type=int)
    return p.parse_args(argv)


def main(argv):
    args = parse(argv)
    temp = None
    if not args.stubs_dir:
        temp = tempfile.mkdtemp(prefix="powersweep-stubs-")
        args.stubs_dir = temp
    try:
        return COMMANDS[args.command](Client(args))
    except grpc.RpcError as e:
        print("error: %s: %s" % (e.code().name, e.details()), file=sys.stderr)
        return 3 if e.code() == grpc.StatusCode.UNAVAILABLE else 1
    except (OSError, ValueError, RuntimeError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    finally:
        if temp:
            shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
