// Internal to the sweep-file reader (sweep_file.cc): converts YAML nodes
// into protobuf fields by reflection, so that the accepted keys and their
// types follow the proto schema. Problems are appended as one line each,
// "<where> at line N: expected <type>, got <what>".
//
// Never throws (only non-throwing yaml-cpp accessors are used). Thread-safe
// (no shared state).
#ifndef POWERSWEEP_CONTROLLER_SWEEP_YAML_FIELDS_H_
#define POWERSWEEP_CONTROLLER_SWEEP_YAML_FIELDS_H_

#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "yaml-cpp/yaml.h"

namespace powersweep {

// 1-based line of a node.
int LineOf(const YAML::Node& node);

// "'abc'", "a list", "a map" or "nothing": what a user wrote.
std::string Describe(const YAML::Node& node);

// What a field of this type expects, e.g. "an integer", "one of train, infer".
std::string Expected(const google::protobuf::FieldDescriptor* field);

// Field names of `descriptor`, in declaration order, joined with ", ".
std::string FieldNames(const google::protobuf::Descriptor* descriptor);

// The YAML spelling of enum value `value` of `field` (TASK_TRAIN -> "train").
std::string EnumSpelling(const google::protobuf::EnumValueDescriptor* value);

// Converts the scalar `node` for the non-message field `field` and sets it
// on `msg` (adds to it when the field is repeated). On a type error
// appends a problem naming `where` and leaves `msg` unchanged.
void ReadScalarInto(const YAML::Node& node,
                    const google::protobuf::FieldDescriptor* field,
                    google::protobuf::Message* msg, const std::string& where,
                    std::vector<std::string>* problems);

// Parses a finite number; false (and a problem naming `where`) otherwise.
bool ReadNumber(const YAML::Node& node, const std::string& where, double* out,
                std::vector<std::string>* problems);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_YAML_FIELDS_H_
