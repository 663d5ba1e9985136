"""The two standard gRPC services powersweep-controller serves besides its
own API, for Python clients without the grpcio-health-checking and
grpcio-reflection packages (Debian 12 has neither): grpc.health.v1.Health
and grpc.reflection.v1alpha.ServerReflection.

The message types are built here from descriptors (only the fields used);
the wire format is the services' own, so any server answers them.
"""
import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _message(file_proto, name, fields):
    """Adds message `name` with fields (name, number, type, label,
    type_name, oneof_index) to `file_proto`."""
    msg = file_proto.message_type.add(name=name)
    for fname, number, ftype, label, type_name, oneof in fields:
        f = msg.field.add(name=fname, number=number, type=ftype, label=label)
        if type_name:
            f.type_name = type_name
        if oneof is not None:
            f.oneof_index = oneof
    return msg


def _build():
    pool = descriptor_pool.DescriptorPool()
    opt, rep = _F.LABEL_OPTIONAL, _F.LABEL_REPEATED

    health = descriptor_pb2.FileDescriptorProto(
        name="grpc_std/health.proto", package="grpc.health.v1",
        syntax="proto3")
    _message(health, "HealthCheckRequest",
             [("service", 1, _F.TYPE_STRING, opt, None, None)])
    resp = _message(health, "HealthCheckResponse",
                    [("status", 1, _F.TYPE_ENUM, opt,
                      ".grpc.health.v1.HealthCheckResponse.ServingStatus",
                      None)])
    enum = resp.enum_type.add(name="ServingStatus")
    for i, n in enumerate(["UNKNOWN", "SERVING", "NOT_SERVING",
                           "SERVICE_UNKNOWN"]):
        enum.value.add(name=n, number=i)
    pool.Add(health)

    refl = descriptor_pb2.FileDescriptorProto(
        name="grpc_std/reflection.proto",
        package="grpc.reflection.v1alpha", syntax="proto3")
    p = ".grpc.reflection.v1alpha."
    req = _message(refl, "ServerReflectionRequest", [
        ("host", 1, _F.TYPE_STRING, opt, None, None),
        ("file_by_filename", 3, _F.TYPE_STRING, opt, None, 0),
        ("file_containing_symbol", 4, _F.TYPE_STRING, opt, None, 0),
        ("list_services", 7, _F.TYPE_STRING, opt, None, 0)])
    req.oneof_decl.add(name="message_request")
    _message(refl, "FileDescriptorResponse",
             [("file_descriptor_proto", 1, _F.TYPE_BYTES, rep, None, None)])
    _message(refl, "ServiceResponse",
             [("name", 1, _F.TYPE_STRING, opt, None, None)])
    _message(refl, "ListServiceResponse",
             [("service", 1, _F.TYPE_MESSAGE, rep, p + "ServiceResponse",
               None)])
    _message(refl, "ErrorResponse", [
        ("error_code", 1, _F.TYPE_INT32, opt, None, None),
        ("error_message", 2, _F.TYPE_STRING, opt, None, None)])
    resp = _message(refl, "ServerReflectionResponse", [
        ("valid_host", 1, _F.TYPE_STRING, opt, None, None),
        ("original_request", 2, _F.TYPE_MESSAGE, opt,
         p + "ServerReflectionRequest", None),
        ("file_descriptor_response", 4, _F.TYPE_MESSAGE, opt,
         p + "FileDescriptorResponse", 0),
        ("list_services_response", 6, _F.TYPE_MESSAGE, opt,
         p + "ListServiceResponse", 0),
        ("error_response", 7, _F.TYPE_MESSAGE, opt, p + "ErrorResponse", 0)])
    resp.oneof_decl.add(name="message_response")
    pool.Add(refl)

    def cls(name):
        desc = pool.FindMessageTypeByName(name)
        if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.22
            return message_factory.GetMessageClass(desc)
        return message_factory.MessageFactory(pool).GetPrototype(desc)

    return {n: cls(n) for n in (
        "grpc.health.v1.HealthCheckRequest",
        "grpc.health.v1.HealthCheckResponse",
        "grpc.reflection.v1alpha.ServerReflectionRequest",
        "grpc.reflection.v1alpha.ServerReflectionResponse")}


_TYPES = _build()
HealthCheckRequest = _TYPES["grpc.health.v1.HealthCheckRequest"]
HealthCheckResponse = _TYPES["grpc.health.v1.HealthCheckResponse"]
ServerReflectionRequest = _TYPES[
    "grpc.reflection.v1alpha.ServerReflectionRequest"]
ServerReflectionResponse = _TYPES[
    "grpc.reflection.v1alpha.ServerReflectionResponse"]


def health_check(channel, service="", timeout=5.0):
    """The serving status of `service` ("" = the whole server) as its name:
    SERVING, NOT_SERVING, ... Raises grpc.RpcError (NOT_FOUND for a service
    the server does not know)."""
    check = channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=HealthCheckRequest.SerializeToString,
        response_deserializer=HealthCheckResponse.FromString)
    response = check(HealthCheckRequest(service=service), timeout=timeout)
    return HealthCheckResponse.DESCRIPTOR.enum_types_by_name[
        "ServingStatus"].values_by_number[response.status].name


def health_watch(channel, service=""):
    """Yields the serving status of `service` as its name, first the current
    one, then each change, until the server ends the stream (e.g. when it
    stops: NOT_SERVING comes first)."""
    watch = channel.unary_stream(
        "/grpc.health.v1.Health/Watch",
        request_serializer=HealthCheckRequest.SerializeToString,
        response_deserializer=HealthCheckResponse.FromString)
    names = HealthCheckResponse.DESCRIPTOR.enum_types_by_name[
        "ServingStatus"].values_by_number
    for response in watch(HealthCheckRequest(service=service)):
        yield names[response.status].name


def _reflect(channel, request, timeout):
    call = channel.stream_stream(
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        request_serializer=ServerReflectionRequest.SerializeToString,
        response_deserializer=ServerReflectionResponse.FromString)
    for response in call(iter([request]), timeout=timeout):
        if response.HasField("error_response"):
            raise RuntimeError("reflection: %s" %
                               response.error_response.error_message)
        return response
    raise RuntimeError("reflection: no response")


def list_services(channel, timeout=5.0):
    """The fully qualified names of the services the server offers."""
    response = _reflect(channel, ServerReflectionRequest(list_services=""),
                        timeout)
    return sorted(s.name for s in response.list_services_response.service)


def file_containing_symbol(channel, symbol, timeout=5.0):
    """The FileDescriptorProtos (descriptor_pb2) of the file declaring
    `symbol` and of the files it imports, as the server describes them."""
    response = _reflect(
        channel, ServerReflectionRequest(file_containing_symbol=symbol),
        timeout)
    files = []
    for raw in response.file_descriptor_response.file_descriptor_proto:
        files.append(descriptor_pb2.FileDescriptorProto.FromString(raw))
    return files
