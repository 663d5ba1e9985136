#include "common/peer_certificate.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpc/grpc_security_constants.h"

namespace powersweep {
namespace {

// The first value of `property` ("" when absent).
std::string FirstValue(const grpc::AuthContext& auth, const char* property) {
  std::vector<grpc::string_ref> values = auth.FindPropertyValues(property);
  if (values.empty()) return "";
  return std::string(values.front().data(), values.front().size());
}

// Splits an RFC 2253 name at unescaped commas (or '+' of multi-valued
// RDNs) into "KEY=value" parts with escapes removed.
std::vector<std::string> SplitRdns(const std::string& subject) {
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < subject.size(); ++i) {
    const char c = subject[i];
    if (c == '\\' && i + 1 < subject.size()) {
      parts.back() += subject[++i];
    } else if (c == ',' || c == '+') {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

}  // namespace

bool PeerCertificate::HasOrganizationalUnit(const std::string& ou) const {
  return std::find(organizational_units.begin(), organizational_units.end(),
                   ou) != organizational_units.end();
}

std::string PeerCertificate::Describe() const {
  if (!verified)
    return tls ? "no client certificate" : "a plaintext connection";
  std::string out = absl::StrCat("CN=", common_name);
  for (const std::string& ou : organizational_units) {
    absl::StrAppend(&out, ", OU=", ou);
  }
  return out;
}

std::vector<std::string> SubjectAttributeValues(const std::string& subject,
                                                const std::string& key) {
  std::vector<std::string> values;
  for (const std::string& part : SplitRdns(subject)) {
    const size_t eq = part.find('=');
    if (eq == std::string::npos) continue;
    std::string k(absl::StripAsciiWhitespace(part.substr(0, eq)));
    if (absl::EqualsIgnoreCase(k, key)) {
      values.emplace_back(absl::StripAsciiWhitespace(part.substr(eq + 1)));
    }
  }
  return values;
}

PeerCertificate PeerCertificateOf(const grpc::AuthContext* auth) {
  PeerCertificate peer;
  if (auth == nullptr) return peer;
  peer.tls = FirstValue(*auth, GRPC_TRANSPORT_SECURITY_TYPE_PROPERTY_NAME) ==
             GRPC_SSL_TRANSPORT_SECURITY_TYPE;
  // The server verifies every certificate it is shown, so one in the auth
  // context is verified; it is only looked for on TLS connections.
  const std::string pem = FirstValue(*auth, GRPC_X509_PEM_CERT_PROPERTY_NAME);
  if (!peer.tls || !auth->IsPeerAuthenticated() || pem.empty()) return peer;
  peer.verified = true;
  peer.common_name = FirstValue(*auth, GRPC_X509_CN_PROPERTY_NAME);
  peer.organizational_units = SubjectAttributeValues(
      FirstValue(*auth, GRPC_X509_SUBJECT_PROPERTY_NAME), "OU");
  return peer;
}

PeerCertificate PeerCertificateOf(const grpc::ServerContext& context) {
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  return PeerCertificateOf(auth.get());
}

}  // namespace powersweep
