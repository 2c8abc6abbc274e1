// FunctionRegistry: the element functions and predicates that specs and
// C++ code find by name. It lists, under one lookup:
//  - the built-ins (builtin_functions.h and the rest of spec ElementFunction's
//    fields, the expression language among them), by their field name, with
//    the message's fields as arguments: named { name: "scale_shift" args {
//    key: "scale" value { float_value: 2 } } } is scale_shift { scale: 2 };
//  - functions that C++ code registers with a factory of FunctionArgs
//    (RegisterElementFunction / RegisterPredicate);
//  - the functions of loaded plugins (dataset/plugin.h), as "plugin.function".
//
// A function made through the registry (MakeNamedFunction) keeps its name and
// arguments, so a pipeline built from it in C++ serializes as
// `named { name args }` (a plugin's adds the plugin's path, name and
// version), and describe and profile show "my_tokenize(max_len=16)".
// Registration is explicit (call it from main or a setup function), and a
// duplicate name is AlreadyExists. An unknown name is NotFound, naming the
// closest registered names and listing them all.
//
// Thread safety: every method may be called concurrently; factories are
// called without the registry's lock held, so they may use the registry.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "sluice/dataset/function_args.h"
#include "sluice/dataset/functions.h"

namespace sluice {

namespace spec {
class NamedFunction;
}  // namespace spec

// Makes a function from its arguments; an error (InvalidArgument naming the
// argument) when they don't fit.
using ElementFunctionFactory = std::function<Result<ElementFunctionPtr>(const FunctionArgs& args)>;
using PredicateFactory = std::function<Result<PredicatePtr>(const FunctionArgs& args)>;

class FunctionRegistry {
 public:
  // The process's registry, which specs resolve names in.
  static FunctionRegistry& Global();

  // `name`: letters, digits and '_' (a '.' marks a plugin's functions);
  // AlreadyExists when a registered function or a built-in has it.
  Status RegisterElementFunction(const std::string& name, ElementFunctionFactory factory);
  Status RegisterPredicate(const std::string& name, PredicateFactory factory);

  // The named function made with `args`: a registered one, a built-in, or a
  // loaded plugin's "plugin.function". NotFound when no function has the name.
  Result<ElementFunctionPtr> MakeElementFunction(const std::string& name, const FunctionArgs& args = {}) const;
  // A registered predicate; or a function of the above whose output is one
  // bool scalar, kept when true.
  Result<PredicatePtr> MakePredicate(const std::string& name, const FunctionArgs& args = {}) const;

  // Every name MakeElementFunction / MakePredicate accepts, sorted.
  std::vector<std::string> ElementFunctionNames() const;
  std::vector<std::string> PredicateNames() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, ElementFunctionFactory> functions_;  // GUARDED_BY(mu_)
  std::map<std::string, PredicateFactory> predicates_;       // GUARDED_BY(mu_)
};

// FunctionRegistry::Global()'s MakeElementFunction / MakePredicate.
Result<ElementFunctionPtr> MakeNamedFunction(const std::string& name, const FunctionArgs& args = {});
Result<PredicatePtr> MakeNamedPredicate(const std::string& name, const FunctionArgs& args = {});

// The function or predicate a spec's NamedFunction describes, in the global
// registry, or (plugin set) in that plugin, loaded by path if it isn't yet.
Result<ElementFunctionPtr> NamedFunctionFromSpec(const spec::NamedFunction& named);
Result<PredicatePtr> NamedPredicateFromSpec(const spec::NamedFunction& named);

// For a "not found" message: the names closest to `name` (by edit
// distance) as a suggestion, then every name.
std::string SuggestNames(std::string_view name, const std::vector<std::string>& names);

}  // namespace sluice
