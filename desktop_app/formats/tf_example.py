"""tf.train.Example records decoded with protobuf alone (no TensorFlow, no generated code, no protoc).

Definition: tensorflow/tensorflow, tensorflow/core/example/example.proto and feature.proto:

    Example  { Features features = 1; }
    Features { map<string, Feature> feature = 1; }
    Feature  { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
    BytesList { repeated bytes value = 1; }  FloatList { repeated float value = 1 [packed]; }
    Int64List { repeated int64 value = 1 [packed]; }

The message classes are built once from a descriptor written here, in a pool of our own, so nothing is
registered in protobuf's default pool (where TensorFlow, if installed, keeps its own tensorflow.Example).
Only field numbers and types matter on the wire, so the package name is ours.
"""

from __future__ import annotations

from functools import cache

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError

from desktop_app.formats.records import Where

_PACKAGE = "screenlab.tfexample"
_F = descriptor_pb2.FieldDescriptorProto


def _message(file, name: str, fields: list[tuple[str, int, int, int, str]], oneof: str = ""):
    """fields: (name, number, type, label, type name of a message field or "")."""
    message = file.message_type.add(name=name)
    if oneof:
        message.oneof_decl.add(name=oneof)
    for field_name, number, kind, label, type_name in fields:
        field = message.field.add(name=field_name, number=number, type=kind, label=label)
        if type_name:
            field.type_name = f".{_PACKAGE}.{type_name}"
        if oneof:
            field.oneof_index = 0
        if kind in (_F.TYPE_FLOAT, _F.TYPE_INT64) and label == _F.LABEL_REPEATED:
            field.options.packed = True
    return message


@cache
def _example_class():
    file = descriptor_pb2.FileDescriptorProto(name="screenlab/tf_example.proto", package=_PACKAGE, syntax="proto3")
    repeated, optional = _F.LABEL_REPEATED, _F.LABEL_OPTIONAL
    _message(file, "BytesList", [("value", 1, _F.TYPE_BYTES, repeated, "")])
    _message(file, "FloatList", [("value", 1, _F.TYPE_FLOAT, repeated, "")])
    _message(file, "Int64List", [("value", 1, _F.TYPE_INT64, repeated, "")])
    _message(file, "Feature", [("bytes_list", 1, _F.TYPE_MESSAGE, optional, "BytesList"),
                               ("float_list", 2, _F.TYPE_MESSAGE, optional, "FloatList"),
                               ("int64_list", 3, _F.TYPE_MESSAGE, optional, "Int64List")], oneof="kind")
    features = _message(file, "Features", [("feature", 1, _F.TYPE_MESSAGE, repeated, "Features.FeatureEntry")])
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=optional)
    entry.field.add(name="value", number=2, type=_F.TYPE_MESSAGE, label=optional, type_name=f".{_PACKAGE}.Feature")
    _message(file, "Example", [("features", 1, _F.TYPE_MESSAGE, optional, "Features")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.Example"))


KINDS = {"bytes_list": "bytes", "float_list": "float", "int64_list": "int64"}


def parse(data: bytes, where: Where, record: str) -> dict[str, tuple[str, list]]:
    """The Example's features: name -> (kind, values), kind "bytes", "float" or "int64" ("" for a feature
    holding no list). A record that is not an Example is refused, named by `record` ("record 3")."""
    example = _example_class()()
    try:
        example.ParseFromString(data)
    except (DecodeError, RecursionError, ValueError):
        raise where.error(f"{record} is not a tf.train.Example: its bytes do not decode as one (another kind of "
                          "record, or damaged)", record) from None
    features = {}
    for name, feature in example.features.feature.items():
        kind = feature.WhichOneof("kind")
        features[name] = (KINDS[kind], list(getattr(feature, kind).value)) if kind else ("", [])
    return features


def serialize(features: dict[str, tuple[str, list]]) -> bytes:
    """An Example holding the features (name -> (kind, values)), for writers and tests."""
    example = _example_class()()
    for name, (kind, values) in features.items():
        target = getattr(example.features.feature[name], f"{kind}_list")
        target.value.extend(values)
    return example.SerializeToString()
